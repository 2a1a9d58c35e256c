// A team's tmux session killed (backends/tmux/team-sessions.ts): kill() resolves only once the
// session is gone AND the processes of its panes are — a console that ignores or outlives the SIGHUP
// of kill-session (it gives the lease back, writing the team's files) must not write behind a
// caller that removes those files next (the demo's root). A real tmux server on a private socket.
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { teamSessions } from '../../../src/backends/registry.js';
import { listAllPanes, newSession, TmuxServer } from '../../../src/backends/tmux/commands.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

describe('TmuxTeamSessions.kill', () => {
  it('waits for the pane processes and ends one that outlives the SIGHUP, verified gone', async () => {
    const pids = new Set<number>();
    const socket = tmuxForThisTest(pids);
    const server = new TmuxServer({ socket });
    // A console that ignores SIGHUP: kill-session alone would leave it running.
    const stubborn = await newSession(server, { name: 'swarm-t', argv: ['sh', '-c', 'trap "" HUP; while :; do sleep 1; done'] });
    // Another session's pane is not touched.
    const other = await newSession(server, { name: 'swarm-u', argv: ['sleep', '60'] });
    pids.add(stubborn.pid).add(other.pid);
    await waitFor(() => isProcessAlive(stubborn.pid), 5000, 'the pane process');

    await teamSessions({ env: { SWARM_TMUX_SOCKET: socket } }).kill('t');
    // Killed and verified (a zombie counts as gone: it writes nothing); tmux, its parent, reaps it
    // a moment later. One that had survived loops for ever and never passes this.
    await waitFor(() => !isProcessAlive(stubborn.pid), 5000, 'the killed pane process reaped');
    expect(isProcessAlive(other.pid)).toBe(true);
    expect((await listAllPanes(server)).map((p) => p.sessionName)).toEqual(['swarm-u']);
  }, 20_000);
});
