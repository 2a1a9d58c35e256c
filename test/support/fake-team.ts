// Fake teammates in tmux, as the CLI tests of launch/spawn/stop/shutdown use them: a fresh root, a
// private tmux server reaped after the test (with every teammate pid the test recorded in `pids`
// SIGKILLed then), and the env that makes `swarm` spawn the fake teammate
// (test/support/fake-teammate.mjs, optionally behind `wrap`, e.g. ['env', 'FAKE_GRACE=1']) there.
// `useFakeTeammates` leaves the team to `swarm launch` (writeTeamFile writes its team.yaml);
// `useFakeTeam` creates the team and sets SWARM_TEAM.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach } from 'vitest';
import { createTeam } from '../../src/team/index.js';
import { useTempRoot } from './tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from './tmux.js';

export const FAKE_TEAMMATE = fileURLToPath(new URL('./fake-teammate.mjs', import.meta.url));

export interface FakeTeam {
  root: string;
  socket: string;
  /** The tmux env (tmuxEnv) for the CLI under test; with useFakeTeam, SWARM_TEAM too. */
  env: Record<string, string>;
}

/** Registers the beforeEach that builds the test's root, server and env, and passes them to `set`. */
export function useFakeTeammates(set: (t: FakeTeam) => void, prefix?: string, pids?: Set<number>, wrap: readonly string[] = []): void {
  let root = '';
  useTempRoot((dir) => (root = dir), prefix);
  beforeEach(() => {
    const socket = tmuxForThisTest(pids);
    set({ root, socket, env: tmuxEnv(socket, [...wrap, process.execPath, FAKE_TEAMMATE]) });
  });
}

/** useFakeTeammates with the team `team` created before each test, and SWARM_TEAM set. */
export function useFakeTeam(team: string, pids: Set<number>, set: (t: FakeTeam) => void, wrap: readonly string[] = []): void {
  let root = '';
  useFakeTeammates((t) => {
    root = t.root;
    set({ ...t, env: { SWARM_TEAM: team, ...t.env } });
  }, undefined, pids, wrap);
  beforeEach(async () => {
    await createTeam(root, { name: team });
  });
}

/** Writes `lines` as `root`/team.yaml (a team file for `swarm launch`); resolves with its path. */
export async function writeTeamFile(root: string, lines: readonly string[]): Promise<string> {
  const file = path.join(root, 'team.yaml');
  await fs.writeFile(file, [...lines, ''].join('\n'));
  return file;
}
