// Change hints for the teammate's own inbox file, shared by everyone in the process that waits on
// it: the idle wait, the plan-approval wait, and the background look-out for signed shutdown
// requests (which must be noticed even while a tool runs). Two storage/DirWatchers (inotify + poll)
// feed one loop that wakes waiters and calls listeners; a hint only means "re-read the file":
//   the inbox file itself (its inode: a change by anyone, Claude Code writers included);
//   its spool directory (mailbox/spool.ts): a sender's message lands there first, so the teammate
//     takes it in its own consume, one inbox write, instead of waiting for the sender's merge and
//     then writing again to mark it read. A broadcast's hundred recipients do not queue behind the
//     sender's hundred appends (BENCHMARKS.md, issue 35).
import path from 'node:path';
import { spoolDirFor } from '../mailbox/spool.js';
import { DirWatcher } from '../storage/watch.js';
import type { TeamPaths } from '../team/paths.js';

export class InboxMonitor {
  private dirty = false;
  private waiters: (() => void)[] = [];
  private listeners: (() => void)[] = [];
  private readonly closing = new AbortController();
  private loops: Promise<void>[] = [];

  private constructor(private readonly watchers: DirWatcher[]) {}

  static async open(paths: TeamPaths, name: string, opts: { pollMs?: number } = {}): Promise<InboxMonitor> {
    const inbox = paths.inbox(name);
    const poll = opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {};
    const watchers = await Promise.all([DirWatcher.open(paths.inboxes, { file: path.basename(inbox), ...poll }), DirWatcher.open(spoolDirFor(inbox), poll)]);
    const monitor = new InboxMonitor(watchers);
    monitor.loops = watchers.map((w) => monitor.run(w));
    return monitor;
  }

  private async run(watcher: DirWatcher): Promise<void> {
    for (;;) {
      try {
        await watcher.changed(this.closing.signal);
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
    await Promise.all(this.watchers.map((w) => w.close()));
    await Promise.all(this.loops);
  }
}
