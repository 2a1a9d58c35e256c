// The type-aware lint rules (.oxlintrc.json, oxlint --type-aware over tsgolint) can fail: a
// floating promise, an async callback where a void one is expected, a promise as a condition and a
// thrown string are each reported, under the rule the repository's config names; a promise that is
// awaited, voided or given a handler is not. Run on a small project of its own, as `npm run lint` runs.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { REPO } from '../support/cli.js';
import { tempRoot } from '../support/tmp-root.js';

const PROBE = `async function later(): Promise<number> {
  return 1;
}
export function floating(): void {
  later();
}
export function misused(xs: number[]): void {
  xs.forEach(async () => {
    await later();
  });
}
export function thrown(): void {
  throw 'not an error';
}
export function condition(): void {
  if (later()) return;
}
export async function handled(): Promise<void> {
  void later();
  later().catch(() => undefined);
  await later();
}
`;

it('oxlint --type-aware with the repository config reports each misuse of a promise and a thrown string, and nothing that is handled', async () => {
  const dir = await tempRoot('swarm-lint-');
  await fs.writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', noEmit: true }, include: ['*.ts'] }));
  await fs.writeFile(path.join(dir, 'probe.ts'), PROBE);
  const r = await execa(path.join(REPO, 'node_modules/.bin/oxlint'), ['-c', path.join(REPO, '.oxlintrc.json'), '--type-aware', '-f', 'json', 'probe.ts'], {
    cwd: dir,
    env: { OXLINT_TSGOLINT_PATH: path.join(REPO, 'node_modules/.bin/tsgolint') },
    reject: false,
  });
  const found = (JSON.parse(r.stdout) as { diagnostics: { code: string; labels: { span: { line: number } }[] }[] }).diagnostics.map((d) => `${d.labels[0]?.span.line}: ${d.code}`);
  expect(found.sort()).toEqual([
    '13: typescript(only-throw-error)',
    '16: typescript(no-misused-promises)',
    '5: typescript(no-floating-promises)',
    '8: typescript(no-misused-promises)',
  ]);
  expect(r.exitCode).toBe(1);
});
