// Spawn and shutdown end to end through the iTerm2 backend, with the fake `it2` on PATH (it really
// runs the command line it is given) and the fake teammate: the registry picks iTerm2 from the
// environment, the teammate becomes ready, and an approved shutdown closes its session.
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/backends/process.js';
import { selectBackend } from '../../src/backends/registry.js';
import { spawnTeammate } from '../../src/teammates/spawn.js';
import { shutdownTeammate } from '../../src/teammates/stop.js';
import { createTeam, readTeam } from '../../src/team/index.js';
import { FakeIt2, LEADER } from '../support/fake-it2.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';

const FAKE_TEAMMATE = fileURLToPath(new URL('../support/fake-teammate.mjs', import.meta.url));

let fake: FakeIt2;
let root: string;
useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  fake = await FakeIt2.create();
  await createTeam(root, { name: 'it' });
});
afterEach(async () => {
  await fake.dispose();
});

it('auto-detected iTerm2: spawn is ready, shutdown approved closes the session and the process is gone', async () => {
  const env: Record<string, string | undefined> = {
    ...fake.env,
    TMUX: undefined,
    TMUX_PANE: undefined,
    TERM_PROGRAM: 'iTerm.app',
    ITERM_SESSION_ID: `w0t0p0:${LEADER}`,
    CLAUDE_CONFIG_DIR: root,
    SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE_TEAMMATE]),
    SWARM_PROBE: 'via it2',
  };
  const { backend, notes } = await selectBackend({ requested: 'auto', env, team: new Team(root, 'it'), killTimeoutMs: 1500 });
  expect(backend.type).toBe('iterm2');
  expect(notes).toEqual([]);
  const r = await spawnTeammate({ team: new Team(root, 'it'), name: 'ann', prompt: 'hello', backend, env, readyTimeoutMs: 8000 });
  expect(r).toMatchObject({ backendType: 'iterm2', name: 'ann' });
  const calls = await fake.calls();
  expect(calls.slice(0, 2)).toEqual([['--help'], ['session', 'list']]); // detection
  expect(calls.find((c) => c[1] === 'split')).toEqual(['session', 'split', '-v', '-s', LEADER]);
  expect((await readTeam(new Team(root, 'it'))).members[1]).toMatchObject({ tmuxPaneId: r.paneId, backendType: 'iterm2', pid: r.pid });

  const out = await shutdownTeammate(new Team(root, 'it'), 'ann', { env, timeoutMs: 8000, killTimeoutMs: 1500 });
  expect(out).toEqual({ name: 'ann', outcome: 'approved', verified: true });
  expect(isProcessAlive(r.pid!)).toBe(false);
  expect(await fake.calls()).toContainEqual(['session', 'close', '-f', '-s', r.paneId]);
  expect((await readTeam(new Team(root, 'it'))).members).toHaveLength(1);
});
