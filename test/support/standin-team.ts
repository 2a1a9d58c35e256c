// A team of real swarm teammates for a test: a temp CLAUDE_CONFIG_DIR with a `work` directory and
// the team made in it, a private tmux server per test (reaped, with the teammates in `pids`), the
// stand-in Messages API closed when the test ends, and the environment a `swarm` child needs to
// spawn swarm-runtime teammates into that server against that stand-in.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach } from 'vitest';
import { startMessagesServer, type MessagesServer, type MessagesServerOptions } from '../../src/standin/messages-server.js';
import { createTeam } from '../../src/team/index.js';
import { SWARM_BIN } from './cli.js';
import { afterThisTest, useTempRoot } from './tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from './tmux.js';

export interface StandinTeam {
  readonly team: string;
  /** This test's root, work directory (the team's cwd) and tmux socket (set before each test). */
  root: string;
  work: string;
  socket: string;
  /** Teammate pids a test learns of: killed when it ends. */
  readonly pids: Set<number>;
  /** The stand-in for this test, closed when it ends. */
  serve(options: MessagesServerOptions): Promise<MessagesServer>;
  /** `swarm` with SWARM_TEAM set, teammates spawned into this test's tmux server against `server`, fast polls. */
  env(server: MessagesServer, extra?: Record<string, string>): Record<string, string>;
}

export function useStandinTeam(team: string, prefix: string): StandinTeam {
  const t: StandinTeam = {
    team,
    root: '',
    work: '',
    socket: '',
    pids: new Set<number>(),
    serve: async (options) => {
      const server = await startMessagesServer(options);
      afterThisTest(() => server.close());
      return server;
    },
    env: (server, extra = {}) => ({
      ...tmuxEnv(t.socket, [process.execPath, SWARM_BIN, 'teammate']),
      SWARM_TEAM: team,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-test',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
      ...extra,
    }),
  };
  useTempRoot((dir) => (t.root = dir), prefix);
  beforeEach(async () => {
    t.work = path.join(t.root, 'work');
    await fs.mkdir(t.work);
    await createTeam(t.root, { name: team, cwd: t.work });
    t.socket = tmuxForThisTest(t.pids);
  });
  return t;
}
