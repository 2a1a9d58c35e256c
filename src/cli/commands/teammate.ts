// `swarm teammate ...`: the teammate process a pane runs (docs/protocol.md#teammate-command-line, docs/protocol.md#teammate-runtime). Flags are validated by
// runtime/args.ts; the process itself (signals, Ctrl-C twice, the exit code) is teammate-process.ts,
// shared with the fast entry (teammate-main.ts), loaded only when it runs (the teammate runtime
// would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import { TEAMMATE_FLAG_ENTRIES } from '../../protocol/teammate-flags.js';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';

// The yargs options of every teammate flag, from the one table.
const TEAMMATE_OPTIONS = Object.fromEntries(TEAMMATE_FLAG_ENTRIES.map(([, f]) => [f.flag, { type: f.type, describe: f.describe }]));

export const teammateCommand: CommandModule<GlobalArgs> = {
  command: 'teammate',
  describe: 'run one teammate (the process in each pane; normally started by swarm spawn)',
  builder: (y) =>
    refuseGlobals(y, 'teammate', { team: 'use --team-name', json: '' })
      .options(TEAMMATE_OPTIONS)
      .example(
        '$0 teammate --agent-id alice@demo --agent-name alice --team-name demo --agent-color blue --parent-session-id <id> --lead-verify-key <key>',
        'what swarm spawn runs in a pane',
      ),
  handler: async (args) => (await import('../teammate-process.js')).runTeammateProcess(args),
};
