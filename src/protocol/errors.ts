// The one error type of swarm: a stable `kind` callers can branch on, a one-line message that says
// what to do, the original error as `cause`, and whether retrying could help (recoverable).
import type * as z from 'zod';

export type ErrorKind =
  | 'invalid_name' // a team/member/request name or id that fails validation
  | 'invalid_input' // a bad flag, file, JSON or tool input
  | 'not_found' // team, member, request or file missing
  | 'exists' // name already taken
  | 'lock_timeout' // could not get a file lock within the budget
  | 'lock_compromised' // the lock was lost while held
  | 'lock_lost' // taken over while held (its holder stalled): discard the work and retry the cycle
  | 'corrupt' // a file that does not parse; it was kept aside
  | 'already_resolved' // a permission request someone else decided
  | 'bad_signature' // a record claiming to be from the leader whose signature does not verify
  | 'backend' // tmux / it2 / process failure
  | 'timeout' // a wait that ran out
  | 'interrupted' // stopped by the user (Ctrl-C) before it finished; what it started was undone
  | 'limit' // the agent lead reached a budget or --max-turns and was told to stop
  | 'io'; // any other file-system failure

export class SwarmError extends Error {
  override readonly name = 'SwarmError';
  readonly kind: ErrorKind;
  readonly recoverable: boolean;

  constructor(kind: ErrorKind, message: string, options: { cause?: unknown; recoverable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.recoverable = options.recoverable ?? (kind === 'lock_timeout' || kind === 'lock_lost' || kind === 'timeout');
  }
}

export function isSwarmError(e: unknown, kind?: ErrorKind): e is SwarmError {
  return e instanceof SwarmError && (kind === undefined || e.kind === kind);
}

/** Node's errno code of an fs error, if any. */
export function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}

/** `path: message` of a zod failure's first issue (`whole` when it is about the value itself), for one-line errors. */
export function firstIssue(error: z.ZodError, whole: string): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || whole}: ${issue?.message ?? 'invalid'}`;
}
