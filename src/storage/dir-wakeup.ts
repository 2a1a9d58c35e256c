// A cheap wake-up for a process waiting for a lock directory to go: sleep until the watched
// directory is removed or touched (inotify through fs.watch), or a second path of the waiter's own
// changes (`alsoWatch`: e.g. its spool file, removed once merged), or a timeout passes, whichever is first.
//
// Unlike watch.ts (a directory's watch plus a poll, for followers that must see every change), this
// is only a hint for a waiter that re-checks its condition on every wake. It watches the lock
// directory itself, not its parent: a busy inboxes/ directory has many entries changing per lock
// cycle, and each change would wake every waiter. Where fs.watch is unavailable (no inotify
// instances left: Linux allows 128 per user by default, so the 129th of a crowd of writers gets
// none; network file systems), `wait` is a plain sleep and the caller's timeout is its poll interval.
import { watch, type FSWatcher } from 'node:fs';

/** The fs.watch it uses (tests pass one that fails the way a system without inotify does). */
export type WatchFn = (path: string, options: { persistent: boolean }, listener: () => void) => FSWatcher;

export class DirWakeup {
  private watcher: FSWatcher | undefined;
  private own: FSWatcher | undefined;
  private watched: string | undefined;
  private generation = 0;
  private wake: (() => void) | undefined;
  private unavailable = false;

  constructor(private readonly watchPath: WatchFn = watch) {}

  /** True when changes wake `wait`; false when it only sleeps (poll faster then). */
  get watching(): boolean {
    return !this.unavailable;
  }

  /**
   * Watch `dir`, known by `identity` (a new identity replaces the old watch). Returns a mark for
   * `wait`: any change after this call ends that wait at once. A `dir` that is already gone counts
   * as a change.
   */
  follow(dir: string, identity: string): number {
    if (this.watched !== identity && !this.unavailable) {
      this.stop();
      this.watched = identity;
      try {
        this.watcher = this.watchPath(dir, { persistent: false }, () => this.changed());
        this.watcher.on('error', () => this.changed());
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.unavailable = true; // no inotify: the caller polls
        const mark = this.generation;
        this.changed();
        return mark;
      }
    }
    return this.generation;
  }

  /**
   * Also wake on any change to `file` (kept until close). A file that is already gone, or no
   * inotify, leaves only the directory and the timeout: the caller re-checks on every wake anyway.
   */
  alsoWatch(file: string): void {
    if (this.unavailable || this.own !== undefined) return;
    try {
      this.own = this.watchPath(file, { persistent: false }, () => this.changed());
      this.own.on('error', () => this.changed());
    } catch {
      this.changed();
    }
  }

  /** Resolve on the first change after `since`, or after `timeoutMs`. */
  wait(since: number, timeoutMs: number): Promise<void> {
    if (this.generation !== since) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      this.wake = done;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  close(): void {
    this.own?.close();
    this.own = undefined;
    this.stop();
    this.changed();
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = undefined;
  }

  private changed(): void {
    this.generation++;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
