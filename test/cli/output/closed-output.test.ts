// A closed stdout under a real `swarm` process (the read end of its pipe closed before or while it
// writes, as `| head -1` does): every command exits quietly with 141 and no EPIPE stack trace.
import type { ResultPromise } from 'execa';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLOSED_OUTPUT_EXIT } from '../../../src/cli/output/closed-output.js';
import { REPO, swarm, startSwarm } from '../../support/cli.js';
import { useTeamRoot } from '../../support/team-root.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 't';
let root: string;

useTeamRoot(TEAM, ['w1'], (dir) => (root = dir));
function start(args: string[]): { proc: ResultPromise; output: () => string } {
  return startSwarm(root, args, { SWARM_TEAM: TEAM });
}

async function expectQuietExit(proc: ResultPromise): Promise<void> {
  const r = await proc;
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(CLOSED_OUTPUT_EXIT);
}

describe('a closed stdout', () => {
  it.each([
    ['status', ['status']],
    ['launch --dry-run', ['launch', '--dry-run', path.join(REPO, 'examples/hello.yaml')]],
  ])('%s: closed before it writes', async (_label, args) => {
    const { proc } = start(args);
    proc.stdout!.destroy();
    await expectQuietExit(proc);
  });

  it('status --watch: closed after the first screen', async () => {
    const { proc, output } = start(['status', '--watch']);
    await waitFor(() => output().includes('team t'), 10_000, 'the first screen');
    proc.stdout!.destroy();
    await swarm(root, ['send', 'w1', 'a change to redraw', '--team', TEAM]);
    await expectQuietExit(proc);
  });

  it('inbox --follow: closed after the first message', async () => {
    await swarm(root, ['send', 'w1', 'first', '--team', TEAM]);
    const { proc, output } = start(['inbox', 'w1', '--follow']);
    await waitFor(() => output().includes('first'), 10_000, 'the first message');
    proc.stdout!.destroy();
    await swarm(root, ['send', 'w1', 'second', '--team', TEAM]);
    await expectQuietExit(proc);
  });
});
