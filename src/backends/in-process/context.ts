// The isolated world of one in-process teammate. Each teammate runs as an async function inside
// the host process; AsyncLocalStorage gives every async continuation it starts its own
// `TeammateContext` (`currentTeammate()`), so shared code (a logger, the tool layer) can tell
// teammates apart without threading a parameter through. Two abort controllers per teammate:
// `stopSignal` ends the teammate for good (kill, host shutdown); `workSignal()` is the signal of
// the current unit of work, aborted by `interrupt` and then renewed (the teammate lives on).
import { AsyncLocalStorage } from 'node:async_hooks';

export interface TeammateContext {
  readonly name: string;
  readonly team: string;
  readonly agentId: string;
  readonly cwd: string;
  /** Aborted when the teammate must stop (kill, host closing). */
  readonly stopSignal: AbortSignal;
  /** The current unit of work's signal; after an interrupt, a fresh one. */
  workSignal(): AbortSignal;
  /** Output for the teammate's "pane": kept in a ring buffer for capture. */
  print(text: string): void;
}

/**
 * The teammate itself: gets the argv and environment a pane would run, and its context. Resolves
 * with an exit code (undefined = 0); a rejection counts as exit code 1 and its message is printed.
 */
export type TeammateLaunch = (
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  ctx: TeammateContext,
) => Promise<number | undefined | void>;

const storage = new AsyncLocalStorage<TeammateContext>();

/** The context of the in-process teammate whose code is running now, if any. */
export function currentTeammate(): TeammateContext | undefined {
  return storage.getStore();
}

export function runAsTeammate<T>(ctx: TeammateContext, fn: () => T): T {
  return storage.run(ctx, fn);
}
