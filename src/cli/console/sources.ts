// The console's sources of change besides the inbox (inbox-feed.ts), each running until the console
// stops: a watched directory (permissions/pending/, status/, config.json) whose every change runs
// `onChange` — an error is reported and the next change tries again — and a slow tick for what no
// file shows (a pane killed behind swarm's back).
import { setTimeout as delay } from 'node:timers/promises';
import { DirWatcher } from '../../storage/watch.js';

export interface WatchOptions {
  /** Only changes to the names it accepts. */
  match?: (name: string) => boolean;
  onError: (e: unknown) => void;
  signal: AbortSignal;
}

/** Run `onChange` on each change in `dir` until `signal` aborts. */
export async function watchDir(dir: string, onChange: () => Promise<void>, o: WatchOptions): Promise<void> {
  const w = await DirWatcher.open(dir, o.match ? { match: o.match } : {});
  try {
    for (;;) {
      await w.changed(o.signal);
      await onChange().catch(o.onError); // the next change tries again
    }
  } catch (e) {
    if (!o.signal.aborted) throw e;
  } finally {
    await w.close();
  }
}

/** Run `onTick` every `ms` until `signal` aborts. */
export async function everyTick(ms: number, onTick: () => Promise<void>, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    await pause(ms, signal); // aborted: the loop ends
    if (!signal.aborted) await onTick();
  }
}

/** Wait `ms`, or less if `signal` aborts first (then it resolves: the caller's loop ends). */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => undefined);
}
