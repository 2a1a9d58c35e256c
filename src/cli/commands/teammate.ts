// `swarm teammate ...`: the teammate process a pane runs (SPEC §4.3, §5). Flags are validated by
// runtime/args.ts; this command only owns the process: SIGTERM / SIGINT / SIGHUP stop the teammate
// cleanly, and the exit code is the runtime's (0 after a shutdown or a signal, 1 after a failure).
import type { CommandModule } from 'yargs';
import { TEAMMATE_FLAG_ENTRIES } from '../../protocol/teammate-flags.js';
import { runTeammate } from '../../runtime/teammate.js';
import type { GlobalArgs } from '../context.js';

// The yargs options of every teammate flag, from the one table.
const TEAMMATE_OPTIONS = Object.fromEntries(TEAMMATE_FLAG_ENTRIES.map(([, f]) => [f.flag, { type: f.type, describe: f.describe }]));

export const teammateCommand: CommandModule<GlobalArgs> = {
  command: 'teammate',
  describe: 'run one teammate (the process in each pane; normally started by swarm spawn)',
  builder: (y) =>
    y
      .options(TEAMMATE_OPTIONS)
      .example(
        '$0 teammate --agent-id alice@demo --agent-name alice --team-name demo --agent-color blue --parent-session-id <id> --lead-verify-key <key>',
        'what swarm spawn runs in a pane',
      ),
  handler: (args) => runTeammateProcess(args),
};

/** Runs the teammate as this process (signals stop it, its code is the exit code); shared with teammate-main.ts. */
export async function runTeammateProcess(flags: unknown): Promise<never> {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => ac.abort(sig);
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, onSignal);
  const code = await runTeammate({
    flags,
    env: process.env,
    write: (t) => void process.stdout.write(t),
    signal: ac.signal,
  });
  process.exit(code);
}
