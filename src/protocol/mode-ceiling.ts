// The person's permission mode is a ceiling (issue 30): neither a model (the agent lead's
// `Agent {mode}`, the MCP `spawn_teammate` to come) nor an agent file's `permissionMode` may give a
// teammate a LESS restrictive mode than the person chose for the run or the spawn. Pure.
//
// Modes from most to least restrictive:
//   plan < default < acceptEdits < bypassPermissions
// `plan` is the most restrictive: only read-only tools until the person approves a plan (the mode
// after that approval is the person's to give, in the signed plan_approval_response). A mode at or
// below the ceiling is allowed; one above it is refused (a model's request) or lowered to the
// ceiling (an agent file's). The ceiling is the mode the person chose explicitly — `--permission-mode`
// of `swarm spawn` / `swarm run` / `swarm lead --agent`, `permissionMode` in a team file (the team's
// `swarm.permissionMode`) — and `default` when they chose none.
import { PermissionModeSchema, type PermissionMode } from './config.js';
import { SwarmError } from './errors.js';

/** Most restrictive first. */
export const MODES_BY_RESTRICTION: readonly PermissionMode[] = ['plan', 'default', 'acceptEdits', 'bypassPermissions'];

/** The ceiling when the person chose no mode. */
export const DEFAULT_CEILING: PermissionMode = 'default';

function rank(mode: PermissionMode): number {
  return MODES_BY_RESTRICTION.indexOf(PermissionModeSchema.parse(mode));
}

/** Is `mode` less restrictive than `ceiling`? */
export function exceedsCeiling(mode: PermissionMode, ceiling: PermissionMode): boolean {
  return rank(mode) > rank(ceiling);
}

/** `mode`, lowered to `ceiling` when it is above it. */
export function capMode(mode: PermissionMode, ceiling: PermissionMode): PermissionMode {
  return exceedsCeiling(mode, ceiling) ? ceiling : mode;
}

/**
 * A mode a model asked for, checked against the person's ceiling: returned when at or below it,
 * else SwarmError('invalid_input') naming the ceiling and the flag that raises it (a tool error).
 */
export function checkRequestedMode(requested: PermissionMode, ceiling: PermissionMode): PermissionMode {
  if (!exceedsCeiling(requested, ceiling)) return requested;
  throw new SwarmError(
    'invalid_input',
    `mode ${requested} is above ${ceiling}, the permission mode the person chose for this run, and a model cannot raise it; ` +
      `spawn with mode ${ceiling} or a more restrictive one (${MODES_BY_RESTRICTION.slice(0, rank(ceiling) + 1).join(', ')}), ` +
      `or ask the person, who can raise it with --permission-mode ${requested} (swarm run / swarm lead --agent) or permissionMode in the team file`,
  );
}
