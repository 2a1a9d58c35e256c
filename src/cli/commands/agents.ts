// `swarm agents [--cwd <dir>] [--json]`: the agent types a teammate may be spawned as
// (docs/protocol.md#agent-types-and-worktrees). The command line only; what it does is
// cli/handlers/agents.ts, loaded when it runs (the agent files' parser would cost every other
// command start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { AgentsArgs } from '../handlers/agents.js';

export const agentsCommand: CommandModule<GlobalArgs, AgentsArgs> = {
  command: 'agents',
  describe: 'list the agent types for --agent-type: built-in, project (.claude/agents) and user (<root>/agents)',
  builder: (y) =>
    refuseGlobals(y, 'agents', { team: 'agent types belong to a project and a user, not a team' })
      .option('cwd', { type: 'string', describe: 'the project directory whose .claude/agents to read (default: the current one)' })
      .example('$0 agents', 'every type, where it comes from, its tools and model')
      .example('$0 agents --json | jq -r ".types[].name"', 'just the names'),
  handler: async (args) => (await import('../handlers/agents.js')).agents(args),
};
