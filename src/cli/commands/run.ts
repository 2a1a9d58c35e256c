// `swarm run "<goal>"` (SPEC §9): give the team a goal and an agent lead that turns it into tasks and
// teammates and has the result verified. The team is created (a free name unless --team; an
// existing --team is used as it is). With -p/--print the run is headless (cli/run/headless.ts):
// progress on stderr, the answer on stdout, exit 0 done / 1 failed or over a limit. Without it the
// leader console opens with the lead in it (cli/run/interactive.ts).
import type { CommandModule } from 'yargs';
import { BACKEND_CHOICES } from '../../backends/registry.js';
import { ensureLeadKey } from '../../permissions/keys.js';
import { PermissionModeSchema } from '../../protocol/config.js';
import { SwarmError } from '../../protocol/errors.js';
import { DEFAULT_MODEL } from '../../runtime/args.js';
import type { LeadLimitSettings } from '../../runtime/lead/limits.js';
import { PRICES_CHECKED, priceOf } from '../../runtime/usage.js';
import { TEAMMATE_RUNTIMES, type TeammateRuntime } from '../../teammates/command-line.js';
import { wordSlug } from '../../team/slug.js';
import { createTeam, teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { oneLine } from '../../protocol/text.js';
import { refuseGlobals, rootDir, type GlobalArgs } from '../context.js';
import { chalk } from '../output/render.js';
import { runHeadless } from '../run/headless.js';
import { runInteractive } from '../run/interactive.js';

export interface RunArgs extends GlobalArgs {
  goal: string;
  print: boolean;
  'lead-model'?: string;
  model?: string;
  'max-teammates': number;
  'max-turns'?: number;
  'budget-usd'?: number;
  'budget-tokens'?: number;
  backend?: string;
  'permission-mode'?: string;
  runtime: string;
  'lead-tools'?: string;
}

function positive(name: string, v: number | undefined, integer: boolean): void {
  if (v === undefined) return;
  if (!(v > 0) || (integer && !Number.isInteger(v))) throw new SwarmError('invalid_input', `expected --${name} to be a positive ${integer ? 'whole number' : 'number'}, got ${v}`);
}

/** The limits from the flags, checked: a one-line error for a bad one, nothing created. */
export function limitsOf(args: RunArgs): LeadLimitSettings {
  positive('max-teammates', args['max-teammates'], true);
  positive('max-turns', args['max-turns'], true);
  positive('budget-usd', args['budget-usd'], false);
  positive('budget-tokens', args['budget-tokens'], true);
  return { maxTeammates: args['max-teammates'], maxTurns: args['max-turns'], budgetUsd: args['budget-usd'], budgetTokens: args['budget-tokens'] };
}

/** The team to run in: --team (created if missing), else a new team with a free name. */
async function teamFor(args: RunArgs): Promise<Team> {
  const description = oneLine(args.goal, 120);
  const name = args.team ?? process.env.SWARM_TEAM;
  if (name !== undefined && name !== '') {
    const team = new Team(rootDir(), name);
    if (await teamExists(team)) return team;
    return (await createTeam(rootDir(), { name, description, cwd: process.cwd() })).team;
  }
  return (await createTeam(rootDir(), { name: wordSlug(), description, cwd: process.cwd(), rename: true })).team;
}

export const runCommand: CommandModule<GlobalArgs, RunArgs> = {
  command: 'run <goal>',
  describe: 'give a team a goal: an agent lead plans it as tasks, spawns teammates, and has the result verified',
  builder: (y) =>
    refuseGlobals(y, 'run', { json: 'the answer is text: swarm run -p "<goal>" prints it on stdout' })
      .positional('goal', { type: 'string', demandOption: true, describe: 'what the team should achieve' })
      .option('print', { alias: 'p', type: 'boolean', default: false, describe: 'headless: no console; progress on stderr, the answer on stdout' })
      .option('lead-model', { type: 'string', describe: `the lead's model (default: $ANTHROPIC_MODEL, else ${DEFAULT_MODEL})` })
      .option('model', { type: 'string', describe: "teammates' model (default: the same rule)" })
      .option('max-teammates', { type: 'number', default: 4, describe: 'teammates at once' })
      .option('max-turns', { type: 'number', describe: "the lead's model steps" })
      .option('budget-usd', { type: 'number', describe: "the team's spend: tokens × list price" })
      .option('budget-tokens', { type: 'number', describe: "the team's tokens (for models without a list price)" })
      .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: 'where teammates open (default: auto-detect)' })
      .option('permission-mode', { type: 'string', describe: `${PermissionModeSchema.options.join(' | ')} for teammates` })
      .option('runtime', { type: 'string', choices: TEAMMATE_RUNTIMES, default: 'swarm', describe: 'swarm teammates, or the real claude CLI' })
      .option('lead-tools', { type: 'string', choices: ['read'], describe: 'read: the lead may also use Read, Glob and Grep' })
      .example('$0 run "add a --verbose flag to the CLI, with tests"', 'a team and its lead, in the console')
      .example('$0 run -p "fix the failing test in test/app.test.ts" --budget-usd 2 > answer.txt', 'headless, for scripts and CI'),
  handler: async (args) => {
    const limits = limitsOf(args);
    if (args['permission-mode'] !== undefined) PermissionModeSchema.parse(args['permission-mode']);
    const leadModel = args['lead-model'] ?? (process.env.ANTHROPIC_MODEL?.trim() || DEFAULT_MODEL);
    if (limits.budgetUsd !== undefined && limits.budgetTokens === undefined && priceOf(leadModel) === undefined) {
      throw new SwarmError('invalid_input', `--budget-usd needs a list price, and the price table (checked ${PRICES_CHECKED}) has none for ${leadModel}: give --budget-tokens instead (or as well)`);
    }
    const team = await teamFor(args);
    await ensureLeadKey(team);
    const common = {
      team,
      goal: String(args.goal),
      env: process.env,
      cwd: process.cwd(),
      leadModel,
      readTools: args['lead-tools'] === 'read',
      limits,
      backend: args.backend,
      model: args.model,
      permissionMode: args['permission-mode'],
      runtime: args.runtime as TeammateRuntime,
    };
    if (!args.print) return runInteractive(common);
    process.stderr.write(`${chalk.bold(`team ${team.name}`)} ${chalk.dim(`· lead ${leadModel} · swarm status --team ${team.name}`)}\n`);
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    process.exitCode = await runHeadless({
      ...common,
      progress: (line) => process.stderr.write(`${line}\n`),
      answer: (text) => process.stdout.write(`${text}\n`),
      signal: stop.signal,
    });
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  },
};
