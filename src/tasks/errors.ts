// The task list's error: a stable `kind` a caller (the CLI's exit code, a model's tool result) can
// act on, and a one-line message that says what to do. Lock and file-system failures stay SwarmErrors.
export type TaskErrorKind = 'not_found' | 'already_claimed' | 'already_resolved' | 'blocked' | 'not_owner' | 'cycle' | 'unknown_blocker' | 'invalid';

export class TaskError extends Error {
  override readonly name = 'TaskError';

  constructor(
    readonly kind: TaskErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isTaskError(e: unknown, kind?: TaskErrorKind): e is TaskError {
  return e instanceof TaskError && (kind === undefined || e.kind === kind);
}

/** The claim refusals: the task is fine, somebody else has it (or owns it: not_owner) or it cannot start yet. */
export const CLAIM_REFUSALS: readonly TaskErrorKind[] = ['already_claimed', 'already_resolved', 'blocked', 'not_owner'];
