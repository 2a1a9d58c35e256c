// Inboxes (docs/protocol.md#inboxes): teams/<team>/inboxes/<name>.json, a pretty-printed JSON array per recipient.
//
// Locking rule: every change (append, consume, clear, compact) is a locked read-modify-write of the
// inbox file through storage/json-file (lock dir `<name>.json.lock`, atomic replace). Reads take no
// lock. Consuming marks entries `read: true` (what older Claude Code readers expect) and, once more
// than `compactThreshold` read entries pile up, moves them to `<name>.archive.jsonl` under the same
// lock (archive appended and fsynced before the inbox is rewritten: a crash can duplicate an entry in
// the archive, never lose one). Delivery is once per msg_id, in append order.
//
// Appends go through the spool (spool.ts, docs/protocol.md#inbox-spool group commit): a sender drops its message in
// `<name>.json.spool/` and then waits for the inbox lock only until somebody has merged it; the
// holder merges every spooled message in one cycle (one rewrite and fsync for many messages). So
// under load most senders never take the lock, and each returns once its message is in the file.
//
// Entries are validated one by one: a malformed entry (another writer's junk, a hand edit) never
// hides the good ones. The first reader or consumer that meets one moves it, under the lock, to
// `<name>.json.corrupt-<epochMs>` (a JSON array of the bad entries), reports it in one line, and
// rewrites the inbox with the rest. A file that is not a JSON array at all is kept aside whole.
import * as z from 'zod';
import { InboxMessageSchema, MAX_MESSAGE_BYTES, messageKey, messageTooLarge, type InboxMessage } from '../protocol/message.js';
import { firstIssue, isSwarmError, SwarmError } from '../protocol/errors.js';
import { newMsgId } from '../protocol/ids.js';
import { formatJson } from '../storage/atomic.js';
import { appendJsonlSync, jsonlBadLines, jsonlValues, readJsonl } from '../storage/jsonl.js';
import {
  defaultCorruptReporter,
  mutateJsonFile,
  quarantine,
  readJsonFile,
  type CorruptReport,
  type JsonFileOptions,
  type MutateInfo,
  type MutationOutcome,
} from '../storage/json-file.js';
import { hasSpooled, isSpooled, spoolEntry, takeSpooled, unspool } from './spool.js';
import type { LockOptions } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';
import type { Team } from '../team/team.js';

/** Signs an entry the mailbox made as the leader (its `msg_id` always set); returns its `lead_sig`. */
export type EntrySigner = (entry: InboxMessage & { msg_id: string }) => string;

export interface MailboxOptions {
  team: Team;
  lock?: LockOptions;
  onCorrupt?: (report: CorruptReport) => void;
  /** Used for entries whose `from` is `team-lead` (docs/protocol.md#leader-signatures). */
  signLead?: EntrySigner;
  now?: () => number;
  /** Read entries kept in the inbox before a consume moves them to the archive. */
  compactThreshold?: number;
}

export const DEFAULT_COMPACT_THRESHOLD = 200;

/**
 * How long a holder goes on merging senders that spooled while it held the inbox lock. Short
 * against Claude Code's lock retries (about 0.6 s in all), which wait through it.
 */
const DRAIN_MS = 25;

const RawInboxSchema = z.array(z.unknown());

/** An entry of an inbox that does not parse as a message: where it was, and why. */
interface BadEntry {
  /** Where it was: `[3]` in the array, or the spool file's name. */
  where: string;
  value: unknown;
  problem: string;
}

/** The dedupe key of a raw entry (msg_id, or the hash of from/timestamp/text), if it has one. */
function rawKey(e: unknown): string[] {
  if (typeof e !== 'object' || e === null) return [];
  const m = e as Record<string, unknown>;
  if (typeof m.msg_id === 'string' && m.msg_id !== '') return [m.msg_id];
  if (typeof m.from === 'string' && typeof m.timestamp === 'string' && typeof m.text === 'string') {
    return [messageKey({ from: m.from, timestamp: m.timestamp, text: m.text })];
  }
  return [];
}

/** Split an inbox array into its messages and its malformed entries, each judged alone. */
function splitEntries(raw: readonly unknown[]): { good: InboxMessage[]; bad: BadEntry[] } {
  const good: InboxMessage[] = [];
  const bad: BadEntry[] = [];
  raw.forEach((value, index) => {
    const parsed = InboxMessageSchema.safeParse(value);
    if (parsed.success) good.push(parsed.data);
    else bad.push({ where: `[${index}]`, value, problem: firstIssue(parsed.error, '(entry)') });
  });
  return { good, bad };
}

export interface NewMessage {
  from: string;
  text: string;
  summary?: string;
  color?: string;
  msgId?: string;
}

/** A message in a recipient's spool, not yet known to be in its inbox (Mailbox.spool). */
export interface Spooled {
  to: string;
  entry: InboxMessage;
  /** The spool file: gone once merged. */
  file: string;
}

export type AppendUnlessResult = { appended: InboxMessage } | { found: InboxMessage };

export class Mailbox {
  readonly paths: TeamPaths;

  constructor(readonly opts: MailboxOptions) {
    this.paths = opts.team.paths;
  }

  private options<T>(schema: z.ZodType<T>): JsonFileOptions<T> {
    return {
      schema,
      init: () => [] as T,
      emptyIsMissing: true, // Claude Code creates an inbox empty to lock it (storage/json-file.ts)
      ...(this.opts.lock ? { lock: this.opts.lock } : {}),
      ...(this.opts.onCorrupt ? { onCorrupt: this.opts.onCorrupt } : {}),
    };
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** Build the entry that `append` writes (signed when it is from the leader). */
  makeEntry(msg: NewMessage): InboxMessage {
    const entry: InboxMessage & { msg_id: string } = {
      from: msg.from,
      text: msg.text,
      timestamp: new Date(this.now()).toISOString(),
      read: false,
      ...(msg.color ? { color: msg.color } : {}),
      ...(msg.summary ? { summary: msg.summary } : {}),
      type: 'message',
      msgV: 1,
      msg_id: msg.msgId ?? newMsgId(),
    };
    if (msg.from === 'team-lead' && this.opts.signLead) entry.lead_sig = this.opts.signLead(entry);
    return entry;
  }

  /** Append one message to `to`'s inbox (file created as `[]` first if missing). */
  async append(to: string, msg: NewMessage | InboxMessage): Promise<InboxMessage> {
    return this.deliver(this.spool(to, msg));
  }

  /**
   * The first half of an append: check the entry and put it in `to`'s spool, where its recipient's
   * next locked cycle already takes it. A broadcast spools to everyone first, then delivers.
   */
  spool(to: string, msg: NewMessage | InboxMessage): Spooled {
    const entry = 'timestamp' in msg ? msg : this.makeEntry(msg);
    const checked = InboxMessageSchema.safeParse(entry);
    if (!checked.success) throw new SwarmError('invalid_input', `not an inbox message (${firstIssue(checked.error, 'entry')}); nothing was written`);
    const bytes = Buffer.byteLength(entry.text, 'utf8');
    if (bytes > MAX_MESSAGE_BYTES) throw new SwarmError('invalid_input', `${messageTooLarge(bytes)}; nothing was written`);
    const file = this.paths.inbox(to);
    return { to, entry, file: spoolEntry(file, entry, this.now()) };
  }

  /** The second half: returns once the spooled entry is in the inbox, merged by this call or by anyone who got there first. */
  async deliver(s: Spooled): Promise<InboxMessage> {
    const { to, entry, file: spooled } = s;
    const file = this.paths.inbox(to);
    try {
      await mutateJsonFile(file, this.options(RawInboxSchema), (inbox, info) => this.mergeSpool(file, inbox, info), { done: () => !isSpooled(spooled), watch: spooled });
    } catch (e) {
      if (!isSpooled(spooled)) throw e;
      if (isSwarmError(e, 'lock_timeout')) {
        throw new SwarmError('lock_timeout', `${e.message}. The message is queued in ${spooled}: the next send or read of ${to}'s inbox delivers it, so do not send it again`);
      }
      // The inbox cannot be read or locked at all (an odd entry, a directory): no merger gets past
      // that either, so take the message back rather than deliver it after the send failed.
      if (isSwarmError(e, 'io')) unspool(spooled);
      throw e;
    }
    if (isSpooled(spooled)) throw new SwarmError('io', `${spooled} was not merged into ${file}; it stays queued there for the next send or read`);
    return entry;
  }

  /**
   * Append `msg` to `to`'s inbox unless `already` finds an entry that makes it redundant, checked
   * under the inbox's own lock (the lock Claude Code takes to write there): of a writer that checks
   * the same way and a Claude Code leader answering at the same instant, exactly one answer lands.
   * Not spooled. Returns the entry written, or the entry `already` found.
   */
  async appendUnless(
    to: string,
    msg: NewMessage,
    already: (entries: readonly InboxMessage[]) => InboxMessage | undefined,
  ): Promise<AppendUnlessResult> {
    const entry = this.makeEntry(msg);
    const file = this.paths.inbox(to);
    return mutateJsonFile(file, this.options(RawInboxSchema), async (raw, info): Promise<MutationOutcome<unknown[], AppendUnlessResult>> => {
      const merged = await this.mergeSpool(file, raw, info, false);
      const current = merged.write ?? raw;
      const found = already(splitEntries(current).good);
      if (found) return { ...merged, result: { found } };
      return { write: [...current, entry], result: { appended: entry }, ...(merged.afterWrite ? { afterWrite: merged.afterWrite } : {}) };
    });
  }

  /** All messages currently in the inbox (no lock). A missing inbox is empty; malformed entries are set aside. */
  async read(name: string): Promise<InboxMessage[]> {
    const file = this.paths.inbox(name);
    if (hasSpooled(file)) await this.mergeSpooled(name); // left by a sender that crashed, or in flight
    const raw = await this.readRaw(file);
    const { good, bad } = splitEntries(raw ?? []);
    if (bad.length > 0) await this.setAsideBadEntries(name);
    return good;
  }

  /**
   * A look without lock or write: the inbox's messages followed by those still in its spool. For a
   * reader that consumes next anyway (the consume takes the spool in the same cycle) or only looks:
   * merging the spool first would cost one more inbox write. `unsettled`: the inbox or spool holds
   * something that is no message, which the next locked cycle keeps aside.
   */
  async peek(name: string): Promise<{ entries: InboxMessage[]; unsettled: boolean }> {
    const file = this.paths.inbox(name);
    const raw = await this.readRaw(file);
    const { good, bad } = splitEntries(raw ?? []);
    const spooled = takeSpooled(file, new Set((raw ?? []).flatMap(rawKey)));
    return { entries: [...good, ...spooled.entries], unsettled: bad.length + spooled.bad.length > 0 };
  }

  /** The inbox file's raw entries, read without the lock (undefined: missing). */
  private readRaw(file: string): Promise<unknown[] | undefined> {
    return readJsonFile(file, { schema: RawInboxSchema, emptyIsMissing: true, ...(this.opts.lock ? { lock: this.opts.lock } : {}) });
  }

  /** One locked cycle that moves every spooled message of `name` into its inbox. */
  async mergeSpooled(name: string): Promise<void> {
    const file = this.paths.inbox(name);
    await mutateJsonFile(file, this.options(RawInboxSchema), (inbox, info) => this.mergeSpool(file, inbox, info));
  }

  /**
   * The mutation that merges the spool into `inbox` (raw entries, kept as they are). While messages
   * keep arriving it asks for another round, up to DRAIN_MS after the lock was taken: the next
   * senders are merged without a lock hand-over, and each wakes as its spool file goes.
   */
  private async mergeSpool(file: string, inbox: unknown[], info: MutateInfo, drain = true): Promise<MutationOutcome<unknown[], number>> {
    const take = takeSpooled(file, new Set(inbox.flatMap(rawKey)));
    if (take.bad.length > 0) {
      info.held.assertHeld();
      await this.keepBadEntries(file, take.bad);
    }
    if (take.entries.length === 0) return { result: 0, afterWrite: take.remove };
    const again = (): boolean => drain && Date.now() - info.heldSince < DRAIN_MS && hasSpooled(file);
    return { write: [...inbox, ...take.entries], result: take.entries.length, afterWrite: take.remove, again };
  }

  /** Under the lock: move the malformed entries of `name`'s inbox to a .corrupt file, keep the rest. */
  private async setAsideBadEntries(name: string): Promise<void> {
    const file = this.paths.inbox(name);
    await mutateJsonFile(file, this.options(RawInboxSchema), async (raw, { existed, held }) => {
      const { good, bad } = splitEntries(raw);
      if (!existed || bad.length === 0) return { result: undefined };
      held.assertHeld();
      await this.keepBadEntries(file, bad);
      return { write: good, result: undefined };
    });
  }

  private async keepBadEntries(file: string, bad: readonly BadEntry[]): Promise<void> {
    const keptAs = await quarantine(file, this.now(), formatJson(bad.map((b) => b.value)));
    const first = bad[0]!;
    const n = bad.length;
    (this.opts.onCorrupt ?? defaultCorruptReporter)({
      file,
      keptAs,
      problem: `${n} malformed entr${n === 1 ? 'y' : 'ies'} (first at ${first.where}: ${first.problem})`,
      entries: n,
    });
  }

  async unread(name: string): Promise<InboxMessage[]> {
    return (await this.read(name)).filter((m) => !m.read);
  }

  /**
   * Deliver every unread entry once, in order, marking it read (duplicates by msg_id are marked and
   * skipped). `accept` can leave entries unread for another reader (e.g. the permission waiter).
   * Compacts read entries to the archive past the threshold. `beforeWrite`, when some are taken, is
   * awaited under the lock before the inbox says they are read: a reader records there what it is
   * taking (a write-ahead note), so that a crash right after the write cannot lose them.
   */
  async consume(
    name: string,
    accept: (m: InboxMessage) => boolean = () => true,
    beforeWrite?: (taken: readonly InboxMessage[]) => Promise<void>,
  ): Promise<InboxMessage[]> {
    const threshold = this.opts.compactThreshold ?? DEFAULT_COMPACT_THRESHOLD;
    const file = this.paths.inbox(name);
    return mutateJsonFile(file, this.options(RawInboxSchema), async (raw, { existed, held }) => {
      const take = takeSpooled(file, new Set(raw.flatMap(rawKey)));
      // Nothing to do for a missing inbox, unless the spool holds junk: that is kept aside below, never just removed.
      if (!existed && take.entries.length === 0 && take.bad.length === 0) return { result: [], afterWrite: take.remove };
      const { good, bad } = splitEntries(raw);
      const inbox = [...good, ...take.entries];
      // Entries merged in this cycle stay in the inbox (read) until a later cycle may archive them:
      // their spool files are removed only after this write, and must still find them here.
      const fresh = new Set(take.entries);
      let changed = take.entries.length > 0;
      bad.push(...take.bad);
      if (bad.length > 0) {
        held.assertHeld();
        await this.keepBadEntries(file, bad);
        changed = true;
      }
      const seen = new Set(inbox.filter((m) => m.read).map(messageKey));
      const delivered: InboxMessage[] = [];
      for (const m of inbox) {
        if (m.read || !accept(m)) continue;
        const key = messageKey(m);
        m.read = true;
        changed = true;
        if (seen.has(key)) continue;
        seen.add(key);
        delivered.push({ ...m });
      }
      if (delivered.length > 0) await beforeWrite?.(delivered);
      let next = inbox;
      const archivable = (m: InboxMessage) => m.read && !fresh.has(m);
      const readCount = inbox.filter(archivable).length;
      if (readCount > threshold) {
        const archived = inbox.filter(archivable);
        held.assertHeld(); // a cycle retried after a takeover must not archive the same entries twice
        appendJsonlSync(this.paths.archive(name), archived);
        next = inbox.filter((m) => !archivable(m));
        changed = true;
      }
      return changed ? { write: next, result: delivered, afterWrite: take.remove } : { result: delivered, afterWrite: take.remove };
    });
  }

  /**
   * Empty an inbox (spawn step 2), spool included: what was sent before the clear is gone. Entries
   * and spool files that are not messages are kept aside first, as everywhere: junk is evidence.
   */
  async clear(name: string): Promise<void> {
    const file = this.paths.inbox(name);
    await mutateJsonFile(file, this.options(RawInboxSchema), async (raw, { held }) => {
      const take = takeSpooled(file, new Set());
      const bad = [...splitEntries(raw).bad, ...take.bad];
      if (bad.length > 0) {
        held.assertHeld();
        await this.keepBadEntries(file, bad);
      }
      return { write: [], result: undefined, afterWrite: take.remove };
    });
  }

  /**
   * Entries moved to the archive by compaction, oldest first (storage/jsonl.ts's rule: a torn last
   * line is not written yet; a line that is not JSON is an error; JSON that is not a message is skipped).
   */
  async archived(name: string): Promise<InboxMessage[]> {
    const file = this.paths.archive(name);
    const read = await readJsonl(file);
    if (jsonlBadLines(read).length > 0) throw new SwarmError('corrupt', `${file} has a line that is not JSON; inspect it with 'jq -c . ${file}'`);
    return jsonlValues(read).flatMap((v) => {
      const parsed = InboxMessageSchema.safeParse(v);
      return parsed.success ? [parsed.data] : [];
    });
  }
}
