// Name rules (docs/protocol.md#names-and-ids): team names, member names, agent ids. Validation happens here, once, before
// any path is built from a name, so `../x`, `a/b`, NUL or `@` can never reach the file system.
import { SwarmError } from './errors.js';

export const TEAM_NAME_RE = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MEMBER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const LEAD_NAME = 'team-lead';
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const RESERVED_MEMBER_NAMES = ['team-lead', 'user', 'system', 'main', '*'] as const;
/** The sender of notices no member wrote (e.g. a member's tasks released when it left), as Claude Code names it. */
export const SYSTEM_SENDER = 'system';

function describe(s: string): string {
  // Show control characters visibly in error messages.
  const shown = s.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return shown.length > 70 ? `"${shown.slice(0, 67)}..." (${s.length} chars)` : `"${shown}"`;
}

/** Throws SwarmError('invalid_name') unless `name` is a valid team name. */
export function assertTeamName(name: string): string {
  if (typeof name !== 'string' || !TEAM_NAME_RE.test(name)) {
    throw new SwarmError(
      'invalid_name',
      `invalid team name ${describe(String(name))}: use 1-64 lowercase letters, digits and '-', starting with a letter or digit`,
    );
  }
  return name;
}

/** Throws unless `name` is a valid, non-reserved member name. */
export function assertMemberName(name: string): string {
  if (typeof name !== 'string' || !MEMBER_NAME_RE.test(name)) {
    throw new SwarmError(
      'invalid_name',
      `invalid member name ${describe(String(name))}: use 1-64 letters, digits, '_' or '-', starting with a letter or digit`,
    );
  }
  if ((RESERVED_MEMBER_NAMES as readonly string[]).includes(name.toLowerCase())) {
    throw new SwarmError('invalid_name', `member name "${name}" is reserved (${RESERVED_MEMBER_NAMES.join(', ')}); pick another`);
  }
  return name;
}

/** Valid for an inbox file: a member name or the leader's `team-lead`. */
export function assertInboxName(name: string): string {
  if (name === LEAD_NAME) return name;
  if (typeof name !== 'string' || !MEMBER_NAME_RE.test(name)) {
    throw new SwarmError('invalid_name', `invalid recipient ${describe(String(name))}: expected a member name, "team-lead" or "*"`);
  }
  return name;
}

export function agentId(name: string, team: string): string {
  return `${name}@${team}`;
}

/** Split `name@team`; throws on anything else. */
export function parseAgentId(id: string): { name: string; team: string } {
  const at = id.lastIndexOf('@');
  if (at <= 0 || at === id.length - 1) {
    throw new SwarmError('invalid_name', `invalid agent id "${id}": expected <name>@<team>`);
  }
  const name = id.slice(0, at);
  const team = id.slice(at + 1);
  assertTeamName(team);
  if (name !== LEAD_NAME) assertMemberName(name);
  return { name, team };
}

export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Throws unless `name` can be an environment variable name (it reaches env(1), tmux -e, export). */
export function assertEnvName(name: string): string {
  if (!ENV_NAME_RE.test(name)) {
    throw new SwarmError('invalid_input', `invalid environment variable name ${describe(name)}: use letters, digits and '_', not starting with a digit`);
  }
  return name;
}
