// The inbox spool (docs/protocol.md#inbox-spool, group commit): where a sender puts its message before it is in the inbox.
//
// Layout: `inboxes/<name>.json.spool/<epochMs>-<key>.json`, one message per file, created in place
// (no temp name and rename: under load every metadata operation waits on the journal). No lock is
// needed to add one. A file that does not parse yet is a send in flight and is left for a later
// cycle; only when it is older than IN_FLIGHT_MS (a sender that died mid-write) is it kept aside. An
// entry that is not a regular file (a directory, symlink or FIFO) is left alone. Whoever holds
// the inbox lock next (a sender, a consumer, a reader that saw spooled files) moves every spooled
// message into the array in one read-modify-write, sorted by timestamp and deduplicated by msg_id,
// and removes the files only after the inbox write, still under the lock. A sender returns once its
// file is gone: its message is then in `<name>.json`, fsynced, where Claude Code readers look.
//
// Deduplication is against the inbox only, never the archive: every locked cycle that changes the
// inbox's entries (merge, consume, clear) takes the spool first, and only consume archives, so a
// spool file's message cannot reach the archive while the file is still there.
//
// The spool file itself is not fsynced: nobody is told "sent" until the inbox write is durable, and
// a file left by a crashed sender survives in the page cache for the next merger.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InboxMessageSchema, messageKey, type InboxMessage } from '../protocol/message.js';
import { errnoCode, isSwarmError } from '../protocol/errors.js';
import { DIR_MODE, FILE_MODE, formatJson } from '../storage/atomic.js';
import { readRegularFileSync, type RegularRead } from '../storage/regular-file.js';

/** How long a spool file that does not parse counts as a send still being written. */
export const IN_FLIGHT_MS = 10_000;

export function spoolDirFor(inboxFile: string): string {
  return `${inboxFile}.spool`;
}

/** Put `entry` in the spool; returns its file (gone once merged). */
export function spoolEntry(inboxFile: string, entry: InboxMessage, now: number): string {
  // Synchronous: a few small metadata operations, cheaper than thread-pool round trips under load.
  const dir = spoolDirFor(inboxFile);
  const safeKey = messageKey(entry).replace(/[^A-Za-z0-9_-]/g, '_');
  const file = path.join(dir, `${String(now).padStart(13, '0')}-${safeKey}.json`);
  const write = () => writeFileSync(file, formatJson(entry), { flag: 'wx', mode: FILE_MODE });
  try {
    write();
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
    mkdirSync(dir, { recursive: true, mode: DIR_MODE }); // only the first time: a mkdir per send contends for inboxes/
    write();
  }
  return file;
}

export function isSpooled(file: string): boolean {
  return existsSync(file);
}

/** Take a message back out of the spool (its send failed for good: nobody can merge it). */
export function unspool(file: string): void {
  rmSync(file, { force: true });
}

/** True when any message waits in the spool (cheap: one readdir). */
export function hasSpooled(inboxFile: string): boolean {
  return spoolNames(inboxFile).length > 0;
}

function spoolNames(inboxFile: string): string[] {
  try {
    return readdirSync(spoolDirFor(inboxFile))
      .filter((n) => n.endsWith('.json') && !n.startsWith('.'))
      .sort();
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
}

/** True when `file` was last written longer than IN_FLIGHT_MS ago (or is gone). */
function abandoned(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > IN_FLIGHT_MS;
  } catch {
    return true;
  }
}

export interface SpoolTake {
  /** Spooled messages not in the inbox yet, in timestamp order. */
  entries: InboxMessage[];
  /** Remove the merged files: call only after the inbox write, under the lock. */
  remove: () => void;
  /** Spool files that are not a message (`where` names the file), kept aside by the caller. */
  bad: { where: string; value: string; problem: string }[];
}

/**
 * Under the inbox lock: read every spooled message, drop those whose key is in `present` (a merger
 * that died after writing the inbox but before removing the files), and say what to remove.
 */
export function takeSpooled(inboxFile: string, present: ReadonlySet<string>): SpoolTake {
  const dir = spoolDirFor(inboxFile);
  const files: string[] = [];
  const found: { entry: InboxMessage; name: string }[] = [];
  const bad: SpoolTake['bad'] = [];
  const seen = new Set(present);
  for (const name of spoolNames(inboxFile)) {
    const file = path.join(dir, name);
    let read: RegularRead;
    try {
      read = readRegularFileSync(file);
    } catch (e) {
      if (isSwarmError(e, 'io')) continue; // unreadable now (doctor lists the entry); a later cycle tries again
      throw e;
    }
    if ('missing' in read) continue; // merged meanwhile by a merger that lost its lock
    // A directory, symlink or FIFO is no message: left where it is (swarm doctor lists it), never
    // followed, never blocking the inbox.
    if ('odd' in read) continue;
    const raw = read.text;
    let parsed: ReturnType<typeof InboxMessageSchema.safeParse>;
    try {
      parsed = InboxMessageSchema.safeParse(JSON.parse(raw));
    } catch (e) {
      if (!abandoned(file)) continue; // still being written: a later cycle takes it
      files.push(file);
      bad.push({ where: `spool file ${name}`, value: raw, problem: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    files.push(file);
    if (!parsed.success) {
      bad.push({ where: `spool file ${name}`, value: raw, problem: parsed.error.issues[0]?.message ?? 'not a message' });
      continue;
    }
    const key = messageKey(parsed.data);
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({ entry: parsed.data, name });
  }
  found.sort((a, b) => a.entry.timestamp.localeCompare(b.entry.timestamp) || a.name.localeCompare(b.name));
  return {
    entries: found.map((f) => f.entry),
    bad,
    remove: () => {
      for (const f of files) rmSync(f, { force: true });
    },
  };
}
