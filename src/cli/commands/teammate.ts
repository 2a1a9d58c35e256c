// `swarm teammate ...`: the teammate process a pane runs (SPEC §4.3, §5). Flags are validated by
// runtime/args.ts; this command only owns the process: SIGTERM / SIGINT / SIGHUP stop the teammate
// cleanly, and the exit code is the runtime's (0 after a shutdown or a signal, 1 after a failure).
import type { Argv, CommandModule } from 'yargs';
import { runTeammate } from '../../runtime/teammate.js';
import type { GlobalArgs } from '../context.js';

interface TeammateArgs extends GlobalArgs {
  agentId?: string;
  agentName?: string;
  teamName?: string;
  agentColor?: string;
  parentSessionId?: string;
  leadVerifyKey?: string;
  agentType?: string;
  model?: string;
  planModeRequired?: boolean;
  permissionMode?: string;
  cwd?: string;
}

export const teammateCommand: CommandModule<GlobalArgs, TeammateArgs> = {
  command: 'teammate',
  describe: 'run one teammate (the process in each pane; normally started by swarm spawn)',
  builder: (y) =>
    y
      .option('agent-id', { type: 'string', describe: '<name>@<team>' })
      .option('agent-name', { type: 'string', describe: 'member name' })
      .option('team-name', { type: 'string', describe: 'team name' })
      .option('agent-color', { type: 'string', describe: 'colour for the pane' })
      .option('parent-session-id', { type: 'string', describe: "the leader's session id (config.json leadSessionId)" })
      .option('lead-verify-key', { type: 'string', describe: "the leader's public key: <createdAtMs>.<base64url SPKI DER>" })
      .option('agent-type', { type: 'string', describe: 'role shown to the team' })
      .option('model', { type: 'string', describe: 'model id (default: member model, $ANTHROPIC_MODEL, a current Sonnet)' })
      .option('plan-mode-required', { type: 'boolean', describe: 'start in plan mode: no edits or Bash until the leader approves a plan' })
      .option('permission-mode', { type: 'string', describe: 'default | acceptEdits | bypassPermissions | plan' })
      .option('cwd', { type: 'string', describe: 'working directory (default: the member cwd)' })
      .example(
        '$0 teammate --agent-id alice@demo --agent-name alice --team-name demo --agent-color blue --parent-session-id <id> --lead-verify-key <key>',
        'what swarm spawn runs in a pane',
      ) as Argv<TeammateArgs>,
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
