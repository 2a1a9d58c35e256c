// Following an inbox: yields entries as they arrive, driven by storage/watch hints (inotify + poll
// fallback). Two modes:
//  - observe (default): read-only; yields every entry not seen before (by msg_id), so it never
//    changes what a teammate will receive;
//  - consume: takes delivery (marks read, may compact), like the teammate itself does.
import path from 'node:path';
import { messageKey, type InboxMessage } from '../protocol/message.js';
import { DirWatcher } from '../storage/watch.js';
import type { Mailbox } from './mailbox.js';

export interface FollowOptions {
  signal?: AbortSignal;
  consume?: boolean;
  /** Observe mode: also yield entries already in the inbox (default true). */
  fromStart?: boolean;
  /** Observe mode: only unread entries. */
  unreadOnly?: boolean;
  /** Poll interval of the fallback, ms (see storage/watch). */
  pollMs?: number;
  /** Poll only, no inotify (network file systems; tests of the poll path). */
  noWatch?: boolean;
  /**
   * Consume mode: called with true before each consume and false once every entry it took has been
   * yielded and handled (the caller asked for the next): between the two, an entry is marked read
   * in the file but not handled yet.
   */
  onTaking?: (taking: boolean) => void;
}

// Like any async generator it starts on the first next(): the watcher opens, and the fromStart:false
// baseline is taken, then — not when followInbox() is called.
export async function* followInbox(mailbox: Mailbox, name: string, opts: FollowOptions = {}): AsyncGenerator<InboxMessage> {
  const file = mailbox.paths.inbox(name);
  const watcher = await DirWatcher.open(mailbox.paths.inboxes, {
    match: (b) => b === path.basename(file),
    ...(opts.pollMs !== undefined ? { pollMs: opts.pollMs } : {}),
    ...(opts.noWatch ? { noWatch: true } : {}),
  });
  const seen = new Set<string>();
  try {
    if (!opts.consume && opts.fromStart === false) {
      for (const m of await mailbox.read(name)) seen.add(messageKey(m));
    }
    for (;;) {
      if (opts.signal?.aborted) return;
      if (opts.consume) opts.onTaking?.(true);
      try {
        const batch = opts.consume ? await mailbox.consume(name) : await mailbox.read(name);
        for (const m of batch) {
          const key = messageKey(m);
          if (seen.has(key)) continue;
          seen.add(key);
          if (!opts.consume && opts.unreadOnly && m.read) continue;
          yield m;
        }
      } finally {
        if (opts.consume) opts.onTaking?.(false);
      }
      try {
        await watcher.changed(opts.signal);
      } catch (e) {
        if (opts.signal?.aborted) return;
        throw e;
      }
    }
  } finally {
    await watcher.close();
  }
}
