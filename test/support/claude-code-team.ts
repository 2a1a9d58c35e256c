// A team with a real Claude Code teammate to come, for a test: before each test a temp root with the
// team created, the Claude Code workspace for `build` (claudeCodeWorkspace: a trusted work directory
// and bin/claude), and a private tmux server (reaped) with a tmux backend on it. The test scripts
// its stand-in with `serve` (closed when the test ends) and spawns `claude` with `env(server)`.
import { beforeEach } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { selectBackend } from '../../src/backends/registry.js';
import { startMessagesServer, type MessagesServer, type MessagesServerOptions } from '../../src/standin/messages-server.js';
import { createTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { claudeCodeEnv, claudeCodeWorkspace, type CLAUDE_CODE_BUILDS } from './claude-code.js';
import { afterThisTest, tempRoot, useTempRoot } from './tmp-root.js';
import { tmuxForThisTest } from './tmux.js';

export interface ClaudeCodeTeam {
  /** This test's team, root, server, backend on it, and Claude Code's work and bin directories (set before each test). */
  team: Team;
  root: string;
  socket: string;
  backend: Backend;
  work: string;
  bin: string;
  /** The stand-in for this test, closed when it ends. */
  serve(options: MessagesServerOptions): Promise<MessagesServer>;
  /** The env that spawns `claude` into this test's server against `server` (claudeCodeEnv). */
  env(server: MessagesServer): Record<string, string>;
}

export function useClaudeCodeTeam(name: string, build: (typeof CLAUDE_CODE_BUILDS)[number], prefix: string): ClaudeCodeTeam {
  let backend: Backend | undefined;
  const t: ClaudeCodeTeam = {
    team: new Team('', name),
    root: '',
    socket: '',
    get backend(): Backend {
      if (backend === undefined) throw new Error('useClaudeCodeTeam: no backend before the test starts');
      return backend;
    },
    work: '',
    bin: '',
    serve: async (options) => {
      const server = await startMessagesServer(options);
      afterThisTest(() => server.close());
      return server;
    },
    env: (server) => claudeCodeEnv({ root: t.root, bin: t.bin, standinUrl: server.url, socket: t.socket }),
  };
  useTempRoot((dir) => (t.root = dir), prefix);
  beforeEach(async () => {
    ({ team: t.team } = await createTeam(t.root, { name }));
    t.socket = tmuxForThisTest();
    ({ work: t.work, bin: t.bin } = await claudeCodeWorkspace(t.root, build, tempRoot));
    ({ backend } = await selectBackend({ requested: 'tmux', env: { SWARM_TMUX_SOCKET: t.socket }, team: t.team, killTimeoutMs: 2000 }));
  });
  return t;
}
