// `swarm kill <name>` (hard stop now, verified) and `swarm shutdown <name|--all>` (cooperative
// shutdown_request, verified exit, optional --force escalation). Each prints exactly what happened
// per teammate; `shutdown` exits 1 when any teammate is still running afterwards.
import type { CommandModule } from 'yargs';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, killTeammate, shutdownAll, shutdownTeammate, type StopOutcome } from '../../teammates/stop.js';
import { SwarmError } from '../../protocol/errors.js';
import { printJson, println, requireTeam, type GlobalArgs } from '../context.js';
import { chalk } from '../output/render.js';

/** One human line per outcome. */
export function describeOutcome(o: StopOutcome): string {
  const name = chalk.bold(o.name);
  switch (o.outcome) {
    case 'approved':
      return `${name}: approved the shutdown; process exited, pane closed, removed from the team${o.reason ? ` (${o.reason})` : ''}`;
    case 'rejected':
      return `${name}: ${chalk.yellow('rejected')} the shutdown: ${o.reason ?? '(no reason)'}; still running (use --force to kill)`;
    case 'killed':
      return `${name}: ${chalk.red('killed')}${o.reason ? ` (${o.reason})` : ''}; pane and process gone, removed from the team`;
    case 'timeout':
      return `${name}: ${chalk.yellow(o.reason ?? 'no answer')}; still running (retry with --force to kill)`;
    case 'already_gone':
      return `${name}: ${o.reason ?? 'already gone'}; leftover pane closed, removed from the team`;
    case 'failed':
      return `${name}: ${chalk.red('failed')}: ${o.reason ?? 'unknown error'}`;
  }
}

interface KillArgs extends GlobalArgs {
  name: string;
}

export const killCommand: CommandModule<GlobalArgs, KillArgs> = {
  command: 'kill <name>',
  describe: 'stop a teammate now (pane and process verified gone) and remove it from the team',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'member name' })
      .example('$0 kill alice --team review-squad', 'hard stop alice'),
  handler: async (args) => {
    const out = await killTeammate(requireTeam(args), args.name, { env: process.env });
    if (args.json) return printJson(out);
    println(describeOutcome(out));
  },
};

interface ShutdownArgs extends GlobalArgs {
  name?: string;
  all: boolean;
  reason?: string;
  timeout: number;
  force: boolean;
}

export const shutdownCommand: CommandModule<GlobalArgs, ShutdownArgs> = {
  command: 'shutdown [name]',
  describe: 'ask a teammate (or --all) to shut down; waits for the answer and verifies the exit',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'member name (or --all)' })
      .option('all', { type: 'boolean', default: false, describe: 'every teammate, in parallel' })
      .option('reason', { type: 'string', describe: 'shown to the teammate' })
      .option('timeout', { type: 'number', default: DEFAULT_SHUTDOWN_TIMEOUT_MS / 1000, describe: 'seconds to wait for an answer' })
      .option('force', { type: 'boolean', default: false, describe: 'kill when it rejects or does not answer in time' })
      .example('$0 shutdown alice --reason "done for today"', 'cooperative stop')
      .example('$0 shutdown --all --timeout 10 --force', 'stop everyone, killing the stubborn')
      .example('$0 shutdown --all --json | jq -r ".[] | .name + \\" \\" + .outcome"', 'what happened, per teammate'),
  handler: async (args) => {
    if (args.all === (args.name !== undefined)) {
      throw new SwarmError('invalid_input', 'name one teammate or pass --all (not both)');
    }
    if (!(args.timeout > 0)) throw new SwarmError('invalid_input', `expected --timeout > 0 seconds, got ${args.timeout}`);
    const team = requireTeam(args);
    const opts = { env: process.env, timeoutMs: args.timeout * 1000, force: args.force, reason: args.reason };
    const outcomes = args.all ? await shutdownAll(team, opts) : [await shutdownTeammate(team, args.name!, opts)];
    if (args.json) printJson(outcomes);
    else if (outcomes.length === 0) println(chalk.dim('no teammates to shut down'));
    else for (const o of outcomes) println(describeOutcome(o));
    if (outcomes.some((o) => !o.verified)) process.exitCode = 1;
  },
};
