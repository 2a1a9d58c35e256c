// The console's sources of change besides the inbox (inbox-feed.ts), each running until the console
// stops: a watched directory (permissions/pending/, status/, config.json) whose every change runs
// `onChange` — an error is reported and the next change tries again — and a slow tick for what no
// file shows (a pane killed behind swarm's back), slower still when it is costly (tickAtMost).
import { setTimeout as delay } from 'node:timers/promises';
import { DirWatcher } from '../../storage/watch.js';

export interface WatchOptions {
  /** Only changes to the names it accepts. */
  match?: (name: string) => boolean;
  onError: (e: unknown) => void;
  signal: AbortSignal;
}

/** Run `onChange` on each change in `dir` until `signal` aborts, with the files that changed ('all' when unknown). */
export async function watchDir(dir: string, onChange: (names: ReadonlySet<string> | 'all') => Promise<void>, o: WatchOptions): Promise<void> {
  const w = await DirWatcher.open(dir, o.match ? { match: o.match } : {});
  try {
    for (;;) {
      await w.changed(o.signal);
      await onChange(w.takeNames()).catch(o.onError); // the next change tries again
    }
  } catch (e) {
    if (!o.signal.aborted) throw e;
  } finally {
    await w.close();
  }
}

/**
 * Run `onTick` every `minMs`, or less often when it takes long: the pause after a tick is at least
 * `1 / share` times what that tick took, so the tick never uses more than `share` of the time (a
 * status sweep of a hundred teammates: ~70 ms, so one every 14 s at share 0.005, not every 5 s).
 */
export async function tickAtMost(minMs: number, share: number, onTick: () => Promise<void>, signal: AbortSignal): Promise<void> {
  let last = 0;
  while (!signal.aborted) {
    await pause(Math.max(minMs, last / share), signal);
    if (signal.aborted) return;
    const t0 = performance.now();
    await onTick();
    last = performance.now() - t0;
  }
}

/** Wait `ms`, or less if `signal` aborts first (then it resolves: the caller's loop ends). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
