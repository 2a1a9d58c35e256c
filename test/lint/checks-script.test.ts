// `npm run checks` (package.json) is the lint and type gate `npm test` runs (checks.test.ts): it runs the
// typecheck beside lint and must fail when either fails. Run here as npm runs it (`sh -c <script>`)
// with an `npm` on PATH that fails the step it is told to, so the shell logic is what is tested,
// not the half minute of the real checks. (It once exited 0 whatever they said: `$!` and `$?`
// expanded by the wrong shell.)
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../support/cli.js';
import { tempRoot } from '../support/tmp-root.js';

it.each([
  ['nothing fails', '', 0],
  ['lint fails', 'lint', 1],
  ['the typecheck fails', 'typecheck', 1],
  ['both fail', 'lint typecheck', 1],
])('npm run checks when %s: exit %i', async (_what, failing, code) => {
  const { scripts } = JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const bin = await tempRoot('swarm-checks-');
  // `npm run -s <step>`: the step is $3.
  await fs.writeFile(path.join(bin, 'npm'), `#!/bin/sh\nsleep 0.1\nfor f in $FAILING; do [ "$3" = "$f" ] && exit 1; done\nexit 0\n`, { mode: 0o755 });
  const r = await execa('sh', ['-c', scripts.checks!], { env: { PATH: `${bin}:${process.env.PATH ?? ''}`, FAILING: failing }, reject: false });
  expect(r.exitCode).toBe(code);
});
