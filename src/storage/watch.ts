// Change hints for a directory: chokidar (inotify) for low latency plus a periodic stat poll as a
// fallback (network file systems have no inotify). A hint only says "re-read": events are never
// counted and never trusted to carry data (chokidar coalesces `change` events < ~50 ms apart).
//
// Usage: const w = await DirWatcher.open(dir, { match }); for (;;) { read(); await w.changed(signal); }
// `changed()` resolves at once if anything changed since the previous call, so a change that lands
// while the caller is reading is never missed.
import { watch, type FSWatcher } from 'chokidar';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SwarmError } from '../protocol/errors.js';
import { ensureDir } from './atomic.js';

export interface DirWatcherOptions {
  /** Only these file names (basename) count; default: all. */
  match?: (basename: string) => boolean;
  /** Poll interval of the fallback, ms (default 1000; 0 disables). */
  pollMs?: number;
  /** Disable inotify (tests of the poll path, network file systems). */
  noWatch?: boolean;
}

export class DirWatcher {
  private dirty = false;
  private waiters: (() => void)[] = [];
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private lastSignature = '';
  private polling = false;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly opts: DirWatcherOptions,
  ) {}

  /** Start watching `dir` (created 0700 if missing); resolves once the watcher is ready. */
  static async open(dir: string, opts: DirWatcherOptions = {}): Promise<DirWatcher> {
    await ensureDir(dir);
    const w = new DirWatcher(dir, opts);
    await w.start();
    return w;
  }

  private async start(): Promise<void> {
    this.lastSignature = await this.signature();
    if (!this.opts.noWatch) {
      const match = this.opts.match;
      this.watcher = watch(this.dir, {
        depth: 0,
        ignoreInitial: true,
        atomic: false, // we want the raw hint at once; the reader re-reads anyway
        ignored: (p: string) => p !== this.dir && match !== undefined && !match(path.basename(p)),
      });
      this.watcher.on('all', () => this.hint());
      // chokidar drops a `change` for a path within 50 ms of the previous one (its throttle), so a
      // second append soon after a first would wait for the poll; its unthrottled `raw` events
      // (every inotify event, with the file name) are hints too.
      this.watcher.on('raw', (_event: string, rawPath: string) => {
        if (match === undefined || match(path.basename(rawPath))) this.hint();
      });
      this.watcher.on('error', () => this.hint());
      await new Promise<void>((resolve) => this.watcher!.once('ready', () => resolve()));
    }
    const pollMs = this.opts.pollMs ?? 1000;
    if (pollMs > 0) {
      this.pollTimer = setInterval(() => void this.poll(), pollMs);
    }
  }

  private async signature(): Promise<string> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir);
    } catch {
      return 'missing';
    }
    const match = this.opts.match;
    const parts: string[] = [];
    for (const name of names.sort()) {
      if (match && !match(name)) continue;
      try {
        const st = await fs.stat(path.join(this.dir, name));
        parts.push(`${name}:${st.ino}:${st.size}:${st.mtimeMs}`);
      } catch {
        // vanished between readdir and stat: the next poll sees it
      }
    }
    return parts.join('|');
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const sig = await this.signature();
      if (sig !== this.lastSignature) {
        this.lastSignature = sig;
        this.hint();
      }
    } finally {
      this.polling = false;
    }
  }

  /** Mark "something may have changed" and wake waiters. */
  hint(): void {
    this.dirty = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * Resolves when something changed since the previous call (at once if it already has).
   * Rejects with the signal's reason when aborted, or SwarmError('timeout') after `timeoutMs`.
   */
  async changed(signal?: AbortSignal, timeoutMs?: number): Promise<void> {
    if (this.dirty) {
      this.dirty = false;
      return;
    }
    if (this.closed) throw new SwarmError('io', `watcher on ${this.dir} is closed`);
    signal?.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        if (timer) clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== done);
          signal?.removeEventListener('abort', onAbort);
          reject(new SwarmError('timeout', `no change in ${this.dir} within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.waiters.push(done);
    });
    this.dirty = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await this.watcher?.close();
    this.hint();
  }
}

/** Resolves after `ms`, when any watcher reports a change, or when `signal` aborts. */
export async function nextChange(watchers: readonly DirWatcher[], signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return;
  const round = new AbortController();
  const onAbort = (): void => round.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const tick = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    round.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    // A waiter rejected by the round's abort is just a loser of the race.
    await Promise.race([tick, ...watchers.map((w) => w.changed(round.signal).catch(() => undefined))]);
  } finally {
    clearTimeout(timer);
    round.abort();
    signal.removeEventListener('abort', onAbort);
  }
}
