// Wait for a condition with a deadline instead of sleeping (libtmux's `retry_until`).

/**
 * Poll `cond` until it returns a truthy value (resolved with it) or `ms` pass (rejects with
 * `what` and the last error `cond` threw, if any). Never sleeps a fixed time. The first looks come
 * `intervalMs` apart, then each pause is half as long again as the one before, up to 100 ms (or `intervalMs` if
 * longer): a condition met at once is seen at once, and a long wait does not spend the suite's two
 * cores looking. Most long waits read a tmux pane (a `tmux capture-pane` process, ~5 ms of CPU
 * each): polled every 20 ms, they took a fifth of the demo and install tests' CPU (53 → 43 CPU-s).
 * The whole suite gains less than one run differs from the next (BENCHMARKS.md).
 */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  ms = 5000,
  what = 'condition',
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
  let wait = intervalMs;
  for (;;) {
    try {
      const v = await cond();
      if (v !== undefined && v !== null && v !== false && (v as unknown) !== '' && (v as unknown) !== 0) {
        return v as NonNullable<T>;
      }
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out after ${ms} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 1.5, Math.max(intervalMs, 100));
  }
}
