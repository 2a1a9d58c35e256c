// The teammate's command line (docs/protocol.md#teammate-command-line; the flags are declared in protocol/teammate-flags.ts) and
// environment, validated once into the settings the runtime runs with. Refuses inconsistent input with a one-line "expected X, got Y" error:
// an agent id that is not <name>@<team>, an unknown member, a bad verify key, a missing cwd.
//
// Precedence: flag > the member's record in config.json > environment > default.
//   model:           --model > member.model > ANTHROPIC_MODEL > DEFAULT_MODEL
//   permission mode: --permission-mode > member.mode > team's swarm.permissionMode > default
//   plan required:   --plan-mode-required or member.planModeRequired
//   cwd:             --cwd > member.cwd > the process cwd (must be an existing directory)
//   agent type:      --agent-type > member.agentType, looked up in the built-ins and the agent
//                    files (team/agent-types.ts; unknown or a bad file: the one-line error)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isPermissionMode, parsePermissionMode, type Member, type PermissionMode, type TeamConfig } from '../protocol/config.js';
import { SwarmError } from '../protocol/errors.js';
import { agentId, assertMemberName, assertTeamName, LEAD_NAME, sameName } from '../protocol/names.js';
import { TEAMMATE_FLAG_ENTRIES, TeammateFlagsSchema, type TeammateFlags } from '../protocol/teammate-flags.js';
import { shutdownGraceMs } from '../protocol/shutdown-timing.js';
import { parseVerifyKey, type ParsedVerifyKey } from '../permissions/signing.js';
import type { AgentType } from '../protocol/agent-type.js';
import { resolveAgentType } from '../team/agent-types.js';
import { repoOfWorktree } from '../teammates/worktree.js';
import { requireMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { DEFAULT_MODEL } from './model-env.js';

export interface TeammateSettings {
  team: Team;
  name: string;
  agentId: string;
  color?: string;
  agentType?: string;
  /** The type's definition (tools, prompt), when the member has a type. */
  agentTypeDef?: AgentType;
  model: string;
  /** Mode at start; `plan` when a plan must be approved first. */
  mode: PermissionMode;
  /** Mode to switch to when a plan is approved without a mode in the response. */
  modeAfterPlan: PermissionMode;
  /** Absolute, real path. */
  cwd: string;
  verifyKey: string;
  parsedKey: ParsedVerifyKey;
  parentSessionId?: string;
  member: Member;
}

/** Knobs read from the environment (all optional, for tests and tuning). */
export interface RuntimeTuning {
  retryBaseMs: number;
  maxRetries: number;
  shutdownGraceMs: number;
  heartbeatMs: number;
  pollMs: number;
  maxTokens: number;
  /** SWARM_COMPACT_AT: compact past this many input tokens; undefined: the model's default (protocol/context-window). */
  compactAt: number | undefined;
}

function intEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new SwarmError('invalid_input', `${name}: expected an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

export function readTuning(env: NodeJS.ProcessEnv): RuntimeTuning {
  return {
    retryBaseMs: intEnv(env, 'SWARM_RETRY_BASE_MS', 1000),
    maxRetries: intEnv(env, 'SWARM_MAX_RETRIES', 8),
    shutdownGraceMs: shutdownGraceMs(env),
    heartbeatMs: intEnv(env, 'SWARM_HEARTBEAT_MS', 5000, 100),
    pollMs: intEnv(env, 'SWARM_POLL_MS', 1000),
    maxTokens: intEnv(env, 'SWARM_MAX_TOKENS', 8192, 1),
    compactAt: env.SWARM_COMPACT_AT?.trim() ? intEnv(env, 'SWARM_COMPACT_AT', 0, 1) : undefined,
  };
}

/**
 * The flags object from a teammate argv as a backend builds it (`... teammate --agent-id ...`): for
 * hosts that run the teammate in-process instead of executing the argv.
 */
export function flagsFromArgv(argv: readonly string[]): Record<string, string | boolean> {
  const at = argv.indexOf('teammate');
  const options = Object.fromEntries(TEAMMATE_FLAG_ENTRIES.map(([, f]) => [f.flag, { type: f.type }]));
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: argv.slice(at + 1), options, strict: true, allowPositionals: false }));
  } catch (e) {
    throw new SwarmError('invalid_input', `swarm teammate: ${(e as Error).message}`);
  }
  const out: Record<string, string | boolean> = {};
  for (const [key, f] of TEAMMATE_FLAG_ENTRIES) {
    const v = values[f.flag];
    if (typeof v === 'string' || v === true) out[key] = v;
  }
  return out;
}

/** Validate the flags alone (no I/O): names, the agent id, the verify key, the mode. */
export function parseFlags(raw: unknown): TeammateFlags & { parsedKey: ParsedVerifyKey; mode?: PermissionMode } {
  const parsed = TeammateFlagsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SwarmError('invalid_input', `swarm teammate: ${issue?.message ?? 'bad flags'}`);
  }
  const flags = parsed.data;
  assertTeamName(flags.teamName);
  assertMemberName(flags.agentName);
  const expectedId = agentId(flags.agentName, flags.teamName);
  if (flags.agentId !== expectedId) {
    throw new SwarmError('invalid_input', `--agent-id: expected ${expectedId} (from --agent-name and --team-name), got ${flags.agentId}`);
  }
  const parsedKey = parseVerifyKey(flags.leadVerifyKey);
  const mode = flags.permissionMode === undefined ? undefined : parsePermissionMode(flags.permissionMode, '--permission-mode');
  return { ...flags, parsedKey, ...(mode ? { mode } : {}) };
}

async function realDir(dir: string, what: string): Promise<string> {
  let real: string;
  try {
    real = await fs.realpath(dir);
  } catch {
    throw new SwarmError('invalid_input', `${what}: expected an existing directory, got ${dir}`);
  }
  if (!(await fs.stat(real)).isDirectory()) throw new SwarmError('invalid_input', `${what}: expected a directory, got the file ${dir}`);
  return real;
}

/** Flags + the team's config.json + env → settings. Throws a one-line SwarmError on anything inconsistent. */
export async function resolveSettings(team: Team, raw: unknown, config: TeamConfig, env: NodeJS.ProcessEnv): Promise<TeammateSettings> {
  const flags = parseFlags(raw);
  if (config.name !== flags.teamName) {
    throw new SwarmError('invalid_input', `--team-name: expected the team of config.json (${config.name}), got ${flags.teamName}`);
  }
  if (sameName(flags.agentName, LEAD_NAME)) throw new SwarmError('invalid_input', '--agent-name: team-lead is the leader, not a teammate');
  const member = requireMember(config, flags.agentName);
  if (config.leadSessionId && flags.parentSessionId && flags.parentSessionId !== config.leadSessionId) {
    throw new SwarmError(
      'invalid_input',
      `--parent-session-id: expected the team's leadSessionId ${config.leadSessionId}, got ${flags.parentSessionId}`,
    );
  }
  const cwd = await realDir(path.resolve(flags.cwd ?? (member.cwd || process.cwd())), flags.cwd ? '--cwd' : `cwd of ${member.name} in config.json`);
  const base = flags.mode ?? (isPermissionMode(member.mode) ? member.mode : undefined) ?? config.swarm?.permissionMode ?? 'default';
  const planRequired = flags.planModeRequired === true || member.planModeRequired === true;
  const model = flags.model ?? member.model ?? (env.ANTHROPIC_MODEL?.trim() || DEFAULT_MODEL);
  const color = flags.agentColor ?? member.color;
  const agentType = flags.agentType ?? member.agentType;
  // A worktree teammate's types are the ones its spawn checked, in the main checkout: a project
  // agent file need not be committed to be there, and only committed files are in the worktree.
  const typesCwd = member.worktreePath ? path.join(repoOfWorktree(member.worktreePath), path.relative(member.worktreePath, cwd)) : cwd;
  const agentTypeDef = agentType === undefined ? undefined : resolveAgentType({ cwd: typesCwd, root: team.root }, agentType);
  return {
    team,
    name: member.name,
    agentId: agentId(member.name, config.name),
    ...(color ? { color } : {}),
    ...(agentType ? { agentType } : {}),
    ...(agentTypeDef ? { agentTypeDef } : {}),
    model,
    mode: planRequired ? 'plan' : base,
    modeAfterPlan: base === 'plan' ? 'default' : base,
    cwd,
    verifyKey: flags.leadVerifyKey,
    parsedKey: flags.parsedKey,
    ...(flags.parentSessionId ? { parentSessionId: flags.parentSessionId } : {}),
    member,
  };
}
