// `npm run checks` (typecheck beside lint, package.json) as one test file: it runs beside the rest of
// the suite instead of before it (vitest.config.ts starts it first), because the suite keeps both
// cores busy and the checks' half a minute in front of it was pure waiting. Its output is the
// failure message.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('npm run checks: the TypeScript of src, test and scripts type-checks, and lint reports nothing', async () => {
  const r = await execa('npm', ['run', '-s', 'checks'], { cwd: REPO, reject: false, all: true, stdin: 'ignore' });
  expect(r.exitCode, r.all).toBe(0);
}, 300_000);
