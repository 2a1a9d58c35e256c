// Waiting for a condition on files other processes write (an inbox marked read, a status file, an
// answer frame): re-check whenever one of the watched directories changes (storage/watch: inotify
// plus a poll fallback), and at least every `tickMs` for conditions no file event announces (a
// pane that died). Never a fixed sleep; always a deadline.
import { DirWatcher } from './watch.js';

export interface AwaitFilesOptions {
  timeoutMs: number;
  /** Re-check at least this often even without a file event (default 250 ms). */
  tickMs?: number;
  signal?: AbortSignal;
}

/**
 * Resolve with the first value `check` returns that is not `undefined`, re-checking on changes in
 * `dirs`; `undefined` when `timeoutMs` passes first (after one last check).
 */
export async function awaitFiles<T>(
  dirs: readonly string[],
  check: () => Promise<T | undefined>,
  opts: AwaitFilesOptions,
): Promise<T | undefined> {
  const deadline = Date.now() + opts.timeoutMs;
  const tick = opts.tickMs ?? 250;
  const watchers: DirWatcher[] = [];
  try {
    for (const d of dirs) watchers.push(await DirWatcher.open(d, { pollMs: Math.max(tick, 200) }));
    for (;;) {
      opts.signal?.throwIfAborted();
      const v = await check();
      if (v !== undefined) return v;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      // One round: the first watcher to report a change (or its tick) ends it; the rest are
      // cancelled through the round's signal (a cancelled wait keeps its pending hint).
      // The caller's abort ends the round too; its listener goes with the round, so a long wait
      // leaves none behind on the caller's signal.
      const round = new AbortController();
      const onAbort = (): void => round.abort();
      opts.signal?.addEventListener('abort', onAbort);
      const wait = Math.min(left, tick);
      const wakes = watchers.map((w) => w.changed(round.signal, wait).catch(() => {})); // a timeout or a cancel is a wake too
      if (wakes.length === 0) wakes.push(new Promise((r) => setTimeout(r, wait)));
      await Promise.race(wakes);
      round.abort();
      await Promise.all(wakes);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  } finally {
    await Promise.all(watchers.map((w) => w.close()));
  }
}
