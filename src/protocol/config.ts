// config.json (docs/protocol.md#team-file): the team file shared with Claude Code. Unknown fields written by other
// tools are kept (loose objects), so a rewrite by swarm never drops them.
import * as z from 'zod';
import { TeamBudgetSchema } from './budget.js';
import { SwarmError } from './errors.js';

/** The pane backends (docs/protocol.md#backends); `backendType` in config.json names one of them. */
export const BackendTypeSchema = z.enum(['tmux', 'iterm2', 'in-process', 'ssh']);
export type BackendType = z.infer<typeof BackendTypeSchema>;

export const PermissionModeSchema = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan']);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

export function isPermissionMode(value: unknown): value is PermissionMode {
  return PermissionModeSchema.safeParse(value).success;
}

/**
 * `value` (given as `what`, e.g. `--permission-mode`) as one of the `allowed` modes, else
 * SwarmError('invalid_input'): `--mode: expected default|acceptEdits|bypassPermissions, got "plan"; …`.
 */
export function parsePermissionMode(value: unknown, what: string, allowed: readonly PermissionMode[] = PermissionModeSchema.options): PermissionMode {
  const parsed = PermissionModeSchema.safeParse(value);
  if (parsed.success && allowed.includes(parsed.data)) return parsed.data;
  throw new SwarmError(
    'invalid_input',
    `${what}: expected ${allowed.join('|')}, got ${JSON.stringify(value)}; pass one of those (case matters)`,
  );
}

export const MemberSchema = z.looseObject({
  agentId: z.string(),
  name: z.string(),
  agentType: z.string().optional(),
  model: z.string().optional(),
  prompt: z.string().optional(),
  color: z.string().optional(),
  planModeRequired: z.boolean().optional(),
  joinedAt: z.number(),
  tmuxPaneId: z.string().default(''),
  cwd: z.string().default(''),
  subscriptions: z.array(z.unknown()).default([]),
  backendType: z.string().optional(),
  isActive: z.boolean().optional(),
  mode: z.string().optional(),
  worktreePath: z.string().optional(),
  runtime: z.string().optional(),
  pid: z.number().int().optional(),
  // swarm's own: where the pane's backend lives (tmux: its server's socket path), opaque here.
  paneServer: z.string().optional(),
  // swarm's own: the machine an `ssh` member runs on (`[user@]host[:port]`); unset = this one.
  host: z.string().optional(),
  // swarm's own: idle this long (ms), a swarm-runtime teammate hibernates (docs/hibernation.md); overrides the team's.
  hibernateAfterMs: z.number().int().positive().optional(),
  // swarm's own: when it hibernated (epoch ms); set while it sleeps, cleared when it wakes.
  hibernatedAt: z.number().optional(),
  // swarm's own: a claude-runtime teammate's Claude Code session (its `--session-id`), which a resume continues.
  sessionId: z.string().optional(),
});
export type Member = z.infer<typeof MemberSchema>;

/** swarm's own section of config.json (rules, settings); other tools ignore it. */
export const SwarmSectionSchema = z.looseObject({
  rules: z
    .looseObject({ allow: z.array(z.string()).default([]), deny: z.array(z.string()).default([]) })
    .optional(),
  backend: z.string().optional(),
  tmuxSession: z.string().optional(),
  permissionMode: PermissionModeSchema.optional(),
  // Repositories where teammates got a git worktree (docs/protocol.md#agent-types-and-worktrees): where `swarm worktrees` and doctor look.
  worktreeRepos: z.array(z.string()).optional(),
  // The agent lead's budget (docs/protocol.md#spend-and-budget), binding every member: protocol/budget.ts.
  budget: TeamBudgetSchema.optional(),
  // Idle this long (ms), a swarm-runtime teammate hibernates and wakes on its next inbox entry (docs/hibernation.md).
  hibernateAfterMs: z.number().int().positive().optional(),
});
export type SwarmSection = z.infer<typeof SwarmSectionSchema>;

/** Who takes delivery of team-lead's inbox (src/team/lead-lease.ts); pid and claimedAt are Claude Code's too. */
export const LeaseKindSchema = z.enum(['console', 'agent', 'headless', 'mcp']);
export type LeaseKind = z.infer<typeof LeaseKindSchema>;

/**
 * Which process a pid is, beyond its number (storage/pid.ts reads it from /proc): the boot it runs
 * in, its start time in clock ticks since that boot, and a digest of its command line.
 */
export const ProcessIdentitySchema = z.looseObject({ bootId: z.string(), startTicks: z.number(), cmd: z.string() });
export type ProcessIdentity = z.infer<typeof ProcessIdentitySchema>;

export const LeadLeaseSchema = z.looseObject({
  pid: z.number(),
  claimedAt: z.number(),
  host: z.string().optional(),
  // Absent when Claude Code (or an older swarm) wrote the record.
  kind: LeaseKindSchema.optional(),
  // The holder's heartbeat (epoch ms), renewed every few seconds while it lives.
  renewedAt: z.number().optional(),
  // What proves the holder is the process that claimed it; absent without /proc or from an older swarm.
  identity: ProcessIdentitySchema.optional(),
  // A watcher asking the holder to hand the lease over (`swarm lead --take-over`).
  takeOver: z
    .looseObject({ pid: z.number(), kind: LeaseKindSchema, host: z.string().optional(), at: z.number(), identity: ProcessIdentitySchema.optional() })
    .optional(),
});
export type LeadLease = z.infer<typeof LeadLeaseSchema>;

export const TeamConfigSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  createdAt: z.number(),
  leadAgentId: z.string(),
  leadSessionId: z.string().default(''),
  members: z.array(MemberSchema),
  hiddenPaneIds: z.array(z.string()).optional(),
  teamAllowedPaths: z.array(z.unknown()).optional(),
  leadProcess: LeadLeaseSchema.optional(),
  swarm: SwarmSectionSchema.optional(),
});
export type TeamConfig = z.infer<typeof TeamConfigSchema>;
