// Change hints for a directory: one inotify watch on the directory (node's fs.watch, which names the
// entry each event is about, so a hint for a file nobody follows costs a name check) plus a periodic
// stat poll of the followed files as a fallback. A hint only says "re-read": events are never counted
// and never trusted to carry data.
//
// Not chokidar (docs/files.md says why we left it): chokidar answers every event in a directory by
// reading the whole directory again and lstat-ing each entry, and puts a watch on every file in it.
// A team of a hundred has a hundred inboxes and a hundred status files written every few seconds, so
// each write cost every follower of the directory a hundred lstats: the console spent 19 % of a core
// on an idle team of 100 and a broadcast's last reader waited 107 s (BENCHMARKS.md, issue 35).
//
// The poll: every `pollMs` (default 1 s) where the directory is on a file system whose writes from
// other machines inotify cannot see (FUSE such as sshfs, NFS, SMB, 9p …: mounts.ts tells), or where
// inotify is unavailable (no watches left, an error); on a local file system inotify sees every
// write, and the poll only runs every LOCAL_POLL_MS as a net for a lost event (a full inotify queue).
//
// One file (`file`): a follower of a single file in a busy directory (a teammate's own inbox among a
// hundred, config.json beside its lock and temp files) watches that file's inode instead, and makes
// the watch again after every event: writers replace the file by renaming a new one into place, which
// the old inode reports (its link count drops) and after which only a new watch sees the new file.
// The directory's watch stands in while the file does not exist. So a broadcast's hundred appends wake
// each of the hundred teammates once, not a hundred times each (BENCHMARKS.md, issue 35).
//
// Usage: const w = await DirWatcher.open(dir, { match }); for (;;) { read(); await w.changed(signal); }
// `changed()` resolves at once if anything changed since the previous call, so a change that lands
// while the caller is reading is never missed.
import { existsSync, promises as fs, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { ensureDir } from './atomic.js';
import { filesystemOf, type Filesystem } from './mounts.js';

/** The poll's interval on a local file system, where inotify sees every write: a net for a lost event. */
export const LOCAL_POLL_MS = 10_000;

/** More names than this since the last takeNames() (nobody takes them, or a burst) are 'all'. */
const MAX_NAMES = 1000;

export interface DirWatcherOptions {
  /** Only these file names (basename) count; default: all. */
  match?: (basename: string) => boolean;
  /** Follow this one file (basename) by a watch on the file itself; `match` is then ignored. */
  file?: string;
  /** Poll interval where inotify cannot see every write, ms (default 1000; 0 disables the poll). */
  pollMs?: number;
  /** Disable inotify: poll every `pollMs` (tests of the poll path). */
  noWatch?: boolean;
  /** The inotify watch (tests pass one that fails). */
  watch?: (dir: string, listener: (event: string, name: string | null) => void) => FSWatcher;
  /** The file system the directory is on (tests pass a network one). */
  filesystem?: (dir: string) => Promise<Filesystem | undefined>;
}

export class DirWatcher {
  private dirty = false;
  /** The names events carried since the last takeNames(); 'all' when a hint named none. */
  private names: Set<string> | 'all' = 'all';
  private waiters: (() => void)[] = [];
  private watcher: FSWatcher | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private lastSignature = '';
  private polling = false;
  private closed = false;
  /** How often the poll runs, ms (0: never). */
  pollingEveryMs = 0;

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
    const pollMs = this.opts.pollMs ?? 1000;
    let seesAll = false; // inotify sees every write to this directory
    if (!this.opts.noWatch) {
      const match = this.opts.match;
      try {
        if (this.opts.file !== undefined) this.watchFile(this.opts.file, pollMs);
        else {
          this.watcher = this.watchDir(pollMs, (name) => {
            if (name === null) this.hint();
            else if (match === undefined || match(name)) this.hint(name);
          });
          this.watcher.on('error', () => this.inotifyLost(pollMs));
        }
        const filesystem = this.opts.filesystem ?? (async (d: string) => filesystemOf(await fs.realpath(d)));
        seesAll = (await filesystem(this.dir))?.remote === false;
      } catch {
        // no inotify watch (ENOSPC: none left, EMFILE …): the poll carries every change
      }
    }
    if (pollMs > 0) this.pollEvery(seesAll ? Math.max(pollMs, LOCAL_POLL_MS) : pollMs);
  }

  /**
   * Watch `file` itself, or, while it does not exist, the directory until it appears. Every event
   * makes the watch again (on the file's inode as it is now) before the hint, so a reader that
   * re-reads on the hint has a watch on what it reads. Throws when no watch can be made.
   */
  private watchFile(file: string, pollMs: number): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.closed) return;
    const again = (): void => {
      try {
        this.watchFile(file, pollMs);
      } catch {
        this.inotifyLost(pollMs);
        return;
      }
      this.hint(file);
    };
    try {
      this.watcher = (this.opts.watch ?? watch)(path.join(this.dir, file), again);
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e;
      this.watcher = this.watchDir(pollMs, (name) => {
        if (name === null || name === file) again();
      });
      if (existsSync(path.join(this.dir, file))) {
        again(); // made between the two: follow it now
        return;
      }
    }
    this.watcher.on('error', () => this.inotifyLost(pollMs));
  }

  /** The directory's own inotify watch: `onName` gets the file each event names (null: none); the directory going ends it. */
  private watchDir(pollMs: number, onName: (name: string | null) => void): FSWatcher {
    const own = path.basename(this.dir);
    return (this.opts.watch ?? watch)(this.dir, (event, name) => {
      if (event === 'rename' && name === own) this.inotifyLost(pollMs); // the directory itself went
      else onName(name);
    });
  }

  /** An error ends an inotify watch: hint (something may have been missed) and poll at the full rate. */
  private inotifyLost(pollMs: number): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (pollMs > 0 && !this.closed) this.pollEvery(pollMs);
    this.hint();
  }

  private pollEvery(ms: number): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = setInterval(() => void this.poll(), ms);
    this.pollingEveryMs = ms;
  }

  private async signature(): Promise<string> {
    if (this.opts.file !== undefined) {
      try {
        const st = await fs.stat(path.join(this.dir, this.opts.file));
        return `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return 'missing';
      }
    }
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

  /** Mark "something may have changed" (in the file `name`, when known) and wake waiters. */
  hint(name?: string): void {
    if (name === undefined || (this.names !== 'all' && this.names.size >= MAX_NAMES)) this.names = 'all';
    else if (this.names !== 'all') this.names.add(name);
    this.dirty = true;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /**
   * The files that changed since the previous call, as far as events named them: 'all' when a hint
   * named none (the start, a poll, an inotify error). A caller that re-reads only these keeps up
   * with a big directory at the cost of what changed.
   */
  takeNames(): ReadonlySet<string> | 'all' {
    const names = this.names;
    this.names = new Set();
    return names;
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
    this.watcher?.close();
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
