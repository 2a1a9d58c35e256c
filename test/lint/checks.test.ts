// `npm run checks` (package.json: the typecheck beside lint) as one test of the suite, so that
// `npm test` fails when either does. vitest.config.ts runs this file first: the suite's first
// files mostly wait on the processes they start, and leave about half of the two cores idle for
// the half minute these checks take (some 25 CPU-s), which before ran alone ahead of the suite.
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { REPO } from '../support/cli.js';

it('npm run checks: the typecheck and lint pass', async () => {
  const r = await execa('npm', ['run', '-s', 'checks'], { cwd: REPO, reject: false, all: true, stdin: 'ignore' });
  expect(r.exitCode, r.all).toBe(0);
}, 180_000);
