// `swarm inbox <name> --follow` as a long-running child: it shows what another `swarm send` process
// writes, and a SIGTERM or SIGHUP ends it cleanly (exit 0, no stack trace).
import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { swarm, startSwarm } from '../../support/cli.js';
import { useTeamRoot } from '../../support/team-root.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 't';
let root: string;

useTeamRoot(TEAM, ['w1', 'w2'], (dir) => (root = dir));
function startFollow(args: string[]): { output: () => string; proc: ResultPromise } {
  return startSwarm(root, ['inbox', ...args, '--follow', '--team', TEAM]);
}

async function send(args: string[]): Promise<void> {
  const r = await swarm(root, [...args, '--team', TEAM]);
  expect(r.exitCode, r.stderr).toBe(0);
}

describe('swarm inbox --follow', () => {
  it('streams messages sent by other processes, and exits 0 on SIGTERM', async () => {
    const f = startFollow(['w1']);
    await send(['send', 'w1', 'hello from the lead']);
    await waitFor(() => f.output().includes('team-lead › ● hello from the lead'), 10_000, 'first message in follow output');
    await send(['send', 'w1', 'and from w2', '--from', 'w2']);
    await waitFor(() => f.output().includes('w2 › ● and from w2'), 10_000, 'second message in follow output');
    expect(f.output().trimEnd().split('\n')).toHaveLength(2);

    f.proc.kill('SIGTERM');
    const r = await f.proc;
    expect(r.signal).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('--consume --json streams JSON lines and takes delivery; SIGHUP (its terminal closed) ends it cleanly too', async () => {
    const f = startFollow(['w1', '--consume', '--json']);
    await send(['send', 'w1', 'take me']);
    await waitFor(() => f.output().includes('\n'), 10_000, 'a JSON line');
    const line = JSON.parse(f.output().split('\n')[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({ from: 'team-lead', text: 'take me', read: true });
    const unread = await swarm(root, ['inbox', 'w1', '--unread', '--json', '--team', TEAM]);
    expect(JSON.parse(unread.stdout)).toEqual([]);
    f.proc.kill('SIGHUP');
    expect((await f.proc).exitCode).toBe(0);
  });
});
