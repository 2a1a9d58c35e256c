// Waiting on several change sources at once (the idle teammate: its inbox and the team's task
// list): resolves when the first does, and cancels the others so no waiter is left behind on a
// watcher that may not change for hours. An abort of `signal` rejects with its reason.
export async function firstChange(signal: AbortSignal, waits: readonly ((signal: AbortSignal) => Promise<void>)[]): Promise<void> {
  const done = new AbortController();
  const both = AbortSignal.any([signal, done.signal]);
  const all = waits.map((w) => w(both));
  try {
    await Promise.race(all);
  } finally {
    done.abort();
    for (const p of all) p.catch(() => undefined); // the losers reject on `done`: nobody waits on them
  }
}
