// Change hints for the teammate's own inbox file, shared by everyone in the process that waits on
// it: the idle wait, the plan-approval wait, and the background look-out for signed shutdown
// requests (which must be noticed even while a tool runs). One storage/DirWatcher (inotify + poll)
// feeds a loop that wakes waiters and calls listeners; a hint only means "re-read the file".
import path from 'node:path';
import { DirWatcher } from '../storage/watch.js';
import type { TeamPaths } from '../team/paths.js';

export class InboxMonitor {
  private dirty = false;
  private waiters: (() => void)[] = [];
  private listeners: (() => void)[] = [];
  private readonly closing = new AbortController();
  private loop: Promise<void> | undefined;

  private constructor(private readonly watcher: DirWatcher) {}

  static async open(paths: TeamPaths, name: string, opts: { pollMs?: number } = {}): Promise<InboxMonitor> {
    const file = path.basename(paths.inbox(name));
    const watcher = await DirWatcher.open(paths.inboxes, { file, ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}) });
    const monitor = new InboxMonitor(watcher);
    monitor.loop = monitor.run();
    return monitor;
  }

  private async run(): Promise<void> {
    for (;;) {
      try {
        await this.watcher.changed(this.closing.signal);
      } catch {
        return; // closing
      }
      this.dirty = true;
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
      for (const l of this.listeners) l();
    }
  }

  /** Call `listener` on every change hint. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Resolves when the inbox may have changed since the previous call; rejects with the signal's reason. */
  async changed(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (!this.dirty) {
      await new Promise<void>((resolve, reject) => {
        const done = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          this.waiters = this.waiters.filter((w) => w !== done);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(done);
      });
    }
    this.dirty = false;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.watcher.close();
    await this.loop;
  }
}
