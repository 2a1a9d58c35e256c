// `swarm spawn <name> --prompt <text>`: add one teammate in a new pane and wait until it is ready
// (docs/protocol.md#spawn). The command line only; what it does is cli/handlers/spawn.ts, loaded
// when it runs (the spawn code and the backends would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import { HIBERNATE_AFTER_HELP } from '../run/options.js';
import { BACKEND_CHOICES } from '../../backends/kinds.js';
import { PermissionModeSchema } from '../../protocol/config.js';
import { TEAMMATE_RUNTIMES } from '../../teammates/command-line.js';
import { DEFAULT_READY_TIMEOUT_MS, ISOLATIONS } from '../../teammates/spawn-choices.js';
import type { GlobalArgs } from '../global-flags.js';
import type { SpawnArgs } from '../handlers/spawn.js';

export const spawnCommand: CommandModule<GlobalArgs, SpawnArgs> = {
  command: 'spawn <name>',
  describe: 'add a teammate in its own pane; returns once it has picked up its prompt',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'member name (letters, digits, _ -)' })
      .option('prompt', { alias: 'p', type: 'string', demandOption: true, describe: 'the initial prompt (its first inbox message)' })
      .option('model', { type: 'string', describe: 'model id for this teammate' })
      .option('agent-type', { type: 'string', describe: 'agent type: its tools, prompt, model and mode (swarm agents lists them)' })
      .option('plan-mode-required', { type: 'boolean', default: false, describe: 'must get a plan approved before editing' })
      .option('permission-mode', { type: 'string', describe: `${PermissionModeSchema.options.join(' | ')} (default: the leader's mode)` })
      .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: 'where the pane opens (default: auto-detect)' })
      .option('host', { type: 'string', describe: 'run it on another machine over ssh: [user@]host[:port] (implies --backend ssh)' })
      .option('cwd', { type: 'string', describe: 'working directory (default: the current one)' })
      .option('runtime', { type: 'string', choices: TEAMMATE_RUNTIMES, default: 'swarm', describe: 'swarm teammate, or the real claude CLI' })
      .option('isolation', { type: 'string', choices: ISOLATIONS, describe: 'worktree: its own git worktree and branch swarm/<team>/<name> (see swarm worktrees)' })
      .option('hibernate-after', { type: 'string', describe: HIBERNATE_AFTER_HELP })
      .option('ready-timeout', { type: 'number', default: DEFAULT_READY_TIMEOUT_MS / 1000, describe: 'seconds to wait for readiness' })
      .example('$0 spawn alice --prompt "review src/app.ts" --team review-squad', 'add a teammate')
      .example('$0 spawn bob -p "write tests" --runtime claude --permission-mode acceptEdits', 'a real Claude Code teammate')
      .example('$0 spawn carol -p "triage" --json | jq .paneId', 'machine-readable result')
      .example('$0 spawn dave -p "fix the parser" --isolation worktree', 'edits in its own git worktree')
      .example('$0 spawn erin -p "run the slow suite" --backend ssh --host ci@build1', 'a teammate on another machine (shared root)'),
  handler: async (args) => (await import('../handlers/spawn.js')).spawn(args),
};
