// A team of fake teammates in tmux, as the CLI tests of spawn/stop/shutdown use it: a fresh root
// with the team created, a private tmux server reaped after the test (with every teammate pid the
// test recorded in `pids` SIGKILLed then), and the env that makes `swarm` spawn the fake teammate
// (test/support/fake-teammate.mjs, optionally behind `wrap`, e.g. ['env', 'FAKE_GRACE=1']) there.
import { fileURLToPath } from 'node:url';
import { beforeEach } from 'vitest';
import { createTeam } from '../../src/team/index.js';
import { useTempRoot } from './tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from './tmux.js';

export const FAKE_TEAMMATE = fileURLToPath(new URL('./fake-teammate.mjs', import.meta.url));

export interface FakeTeam {
  root: string;
  socket: string;
  /** SWARM_TEAM and the tmux env (tmuxEnv) for the CLI under test. */
  env: Record<string, string>;
}

/** Registers the beforeEach that builds the test's FakeTeam and passes it to `set`. */
export function useFakeTeam(team: string, pids: Set<number>, set: (t: FakeTeam) => void, wrap: readonly string[] = []): void {
  let root = '';
  useTempRoot((dir) => (root = dir));
  beforeEach(async () => {
    await createTeam(root, { name: team });
    const socket = tmuxForThisTest(pids);
    set({ root, socket, env: { SWARM_TEAM: team, ...tmuxEnv(socket, [...wrap, process.execPath, FAKE_TEAMMATE]) } });
  });
}
