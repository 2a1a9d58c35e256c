// The agent lead's flags, declared once for `swarm run` and `swarm lead --agent` (docs/protocol.md#agent-lead), and
// what they become: the lead's model, its limits (checked: a one-line error for a bad one, before
// anything is created) and what teammates inherit.
import type { Argv } from 'yargs';
import { BACKEND_CHOICES } from '../../backends/kinds.js';
import { PermissionModeSchema, parsePermissionMode } from '../../protocol/config.js';
import { SwarmError } from '../../protocol/errors.js';
import { parseDuration } from '../../protocol/duration.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_DIR } from '../version.js';
import { DEFAULT_MODEL, hasModelCredentials, NO_CREDENTIALS } from '../../runtime/model-env.js';
import type { LeadLimitSettings } from '../../runtime/lead/limits.js';
import { PRICES_CHECKED, priceOf } from '../../runtime/usage.js';
import { findOnPath, TEAMMATE_RUNTIMES, userPathFor, type TeammateRuntime } from '../../teammates/command-line.js';

/** The flags of every lead's team, whoever leads it: `swarm run`, `swarm lead --agent`, `swarm mcp`. */
export interface TeamArgs {
  model?: string | undefined;
  'max-teammates': number;
  'budget-usd'?: number | undefined;
  'budget-tokens'?: number | undefined;
  backend?: string | undefined;
  'permission-mode'?: string | undefined;
  /** Unset: `swarm` under swarm's own lead, `claude` under a Claude Code lead. */
  runtime?: string | undefined;
  'hibernate-after'?: string | undefined;
}

export interface LeadArgs extends TeamArgs {
  'lead-model'?: string | undefined;
  'max-turns'?: number | undefined;
  'lead-tools'?: string | undefined;
}

/** The flags' defaults (what `swarm demo` runs its lead with). */
const DEFAULTS = { 'max-teammates': 4 } as const satisfies Partial<LeadArgs>;

export function teamOptions<T>(y: Argv<T>, runtimeDefault: TeammateRuntime | 'by lead'): Argv<T & TeamArgs> {
  const byLead = runtimeDefault === 'by lead' ? 'swarm; claude when --lead claude' : runtimeDefault;
  return y
    .option('model', { type: 'string', describe: `teammates' model (default: $ANTHROPIC_MODEL, else ${DEFAULT_MODEL})` })
    .option('max-teammates', { type: 'number', default: DEFAULTS['max-teammates'], describe: 'teammates at once' })
    .option('budget-usd', { type: 'number', describe: "the team's spend: tokens × list price" })
    .option('budget-tokens', { type: 'number', describe: "the team's tokens (for models without a list price)" })
    .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: 'where teammates open (default: the team setting, else auto-detect)' })
    .option('permission-mode', { type: 'string', describe: `${PermissionModeSchema.options.join(' | ')} for teammates` })
    .option('runtime', { type: 'string', choices: TEAMMATE_RUNTIMES, describe: `swarm teammates, or the real claude CLI (default: ${byLead})` })
    .option('hibernate-after', { type: 'string', describe: HIBERNATE_AFTER_HELP }) as Argv<T & TeamArgs>;
}

export function leadOptions<T>(y: Argv<T>, runtimeDefault: TeammateRuntime | 'by lead' = 'swarm'): Argv<T & LeadArgs> {
  return teamOptions(y, runtimeDefault)
    .option('lead-model', { type: 'string', describe: `the lead's model (default: $ANTHROPIC_MODEL, else ${DEFAULT_MODEL})` })
    .option('max-turns', { type: 'number', describe: "the lead's model steps" })
    .option('lead-tools', { type: 'string', choices: ['read'], describe: 'read: the lead may also use Read, Glob and Grep' }) as Argv<T & LeadArgs>;
}

/** `--hibernate-after`'s help, the same on run, lead, mcp, launch and spawn. */
export const HIBERNATE_AFTER_HELP = 'idle this long (30s, 10m, 1h), a swarm teammate hibernates and wakes on its next message (default: never)';

export interface TeamSettings {
  /** The team's hibernateAfter, when given (docs/hibernation.md). */
  hibernateAfterMs?: number | undefined;
  limits: LeadLimitSettings;
  backend: string | undefined;
  model: string | undefined;
  permissionMode: string | undefined;
  runtime: TeammateRuntime;
  cwd: string;
}

/** The team's flags as settings; throws a one-line SwarmError for a bad one. */
export function teamSettings(args: TeamArgs, runtimeDefault: TeammateRuntime, cwd: string): TeamSettings {
  positive('max-teammates', args['max-teammates'], true);
  positive('budget-usd', args['budget-usd'], false);
  positive('budget-tokens', args['budget-tokens'], true);
  if (args['permission-mode'] !== undefined) parsePermissionMode(args['permission-mode'], '--permission-mode');
  const hibernate = args['hibernate-after'] === undefined ? undefined : parseDuration(args['hibernate-after'], '--hibernate-after');
  return {
    ...(hibernate === undefined ? {} : { hibernateAfterMs: hibernate }),
    limits: { maxTeammates: args['max-teammates'], budgetUsd: args['budget-usd'], budgetTokens: args['budget-tokens'] },
    backend: args.backend,
    model: args.model,
    permissionMode: args['permission-mode'],
    runtime: (args.runtime ?? runtimeDefault) as TeammateRuntime,
    cwd,
  };
}

function positive(name: string, v: number | undefined, integer: boolean): void {
  if (v === undefined) return;
  if (!(v > 0) || (integer && !Number.isInteger(v))) throw new SwarmError('invalid_input', `expected --${name} to be a positive ${integer ? 'whole number' : 'number'}, got ${v}`);
}

export interface LeadSettings extends TeamSettings {
  leadModel: string;
  readTools: boolean;
}

/** The flags as settings; throws a one-line SwarmError for a bad one. */
export function leadSettings(args: LeadArgs, env: NodeJS.ProcessEnv, cwd: string): LeadSettings {
  const team = teamSettings(args, 'swarm', cwd);
  positive('max-turns', args['max-turns'], true);
  const leadModel = args['lead-model'] ?? (env.ANTHROPIC_MODEL?.trim() || DEFAULT_MODEL);
  if (args['budget-usd'] !== undefined && args['budget-tokens'] === undefined && priceOf(leadModel) === undefined) {
    throw new SwarmError('invalid_input', `--budget-usd needs a list price, and the price table (checked ${PRICES_CHECKED}) has none for ${leadModel}: give --budget-tokens instead (or as well)`);
  }
  return { ...team, leadModel, readTools: args['lead-tools'] === 'read', limits: { ...team.limits, maxTurns: args['max-turns'] } };
}

/** The settings with every flag at its default. */
export function defaultLeadSettings(env: NodeJS.ProcessEnv, cwd: string): LeadSettings {
  return leadSettings(DEFAULTS, env, cwd);
}

/**
 * Before an agent lead is made (`swarm run`, `swarm lead --agent`) and before anything is created:
 * without model credentials, one error (exit 2) that says what to set, that `swarm demo` runs
 * offline, where `claude` is on PATH how Claude Code leads with no key (`withClaude`: the command),
 * and, where the stand-in and its example scenario are here (a clone), how to run a goal on it.
 * Nothing is left behind: no team, key or file.
 */
export function requireModelCredentials(env: NodeJS.ProcessEnv, command: string, withClaude?: string, forWhat = 'for its agent lead'): void {
  if (hasModelCredentials(env)) return;
  const claude = withClaude !== undefined && findOnPath('claude', { ...env, PATH: userPathFor(env) }) !== undefined ? [`or let Claude Code lead, no key needed (your Claude subscription): ${withClaude}`] : [];
  const standin = path.join(PACKAGE_DIR, 'dist/standin/messages-server.js');
  const script = path.join(PACKAGE_DIR, 'examples/goal.scenario.json');
  const offline = existsSync(standin) && existsSync(script)
    ? [`or run a goal on the scripted stand-in: node ${standin} --script ${script} --port 8788 & ANTHROPIC_BASE_URL=http://127.0.0.1:8788 swarm run -p "List this project's files"`]
    : [];
  throw new SwarmError('invalid_input', [`${command} needs a model ${forWhat}: ${NO_CREDENTIALS}; nothing was created`, ...claude, 'swarm demo runs the whole thing offline (a scripted stand-in model, no key)', ...offline].join('\n'));
}

