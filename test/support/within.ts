// A deadline for one awaited event (an iterator's next(), a child's exit), instead of sleeping.

/** Resolve as `p` does, or reject once `ms` has passed. */
export async function within<T>(p: Promise<T>, ms: number, what = 'result'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
