// Wait for a condition with a deadline instead of sleeping (libtmux's `retry_until`).

/**
 * Poll `cond` until it returns a truthy value (resolved with it) or `ms` pass (rejects with
 * `what` and the last error `cond` threw, if any). Never sleeps a fixed time.
 */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  ms = 5000,
  what = 'condition',
  intervalMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let lastError: unknown;
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
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
