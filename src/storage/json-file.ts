// JSON files shared between processes: a lock-free read and a locked read-modify-write.
//
// Rules (docs/protocol.md#locks-and-atomic-writes): every whole-file write is atomic (see atomic.ts); every read-modify-write holds
// the file's lock (see lock.ts); a file that does not parse (JSON or schema) is never treated as
// empty and never overwritten: it is renamed to `<file>.corrupt-<epochMs>` (bytes kept), reported,
// and a fresh file is started. A lock-free read that fails to parse is retried under the lock first,
// because a non-atomic writer (Claude Code) may have been caught mid-write. A file kept in place (a
// team's config.json) is also read again for a moment before it is called corrupt: Claude Code
// rewrites it in place, some of its writes without taking the lock. Such a file that stays empty
// (its writer truncated it and ended before it wrote: a Claude Code teammate that exits mid-way
// through its unawaited rewrite) is put back from the last good text this process read or wrote in
// that same directory, when the caller asks for that. Only a regular file is read
// (regular-file.ts): a symlink, FIFO or directory at the path is an io error naming it, never
// followed, waited on, or replaced.
import { statSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type * as z from 'zod';
import { errnoCode, firstIssue, isSwarmError, SwarmError } from '../protocol/errors.js';
import { CORRUPT_LABEL, formatJson, keepAside, keepAsideContent, writeFileAtomicSync } from './atomic.js';
import { oddFileError, readRegularFile, readRegularFileSync, type RegularRead } from './regular-file.js';
import { STOPPED_WAITING, withFileLock, type HeldLock, type LockOptions, type StopWaiting } from './lock.js';

export interface CorruptReport {
  file: string;
  keptAs: string;
  problem: string;
  /** Set when only these malformed entries were moved to `keptAs` and the file kept the rest. */
  entries?: number;
}

export interface JsonFileOptions<T> {
  schema: z.ZodType<T>;
  /** Value of a missing file (an update creates the file with it). */
  init: () => T;
  lock?: LockOptions;
  /** Called when a corrupt file was kept aside. Default: one line on stderr. */
  onCorrupt?: (report: CorruptReport) => void;
  /**
   * Leave a corrupt file where it is and throw SwarmError('corrupt') (`corruptError` words it), for
   * files that must never be restarted empty (a team's config.json): nothing is moved or written.
   * Such a file is read again every few ms until IN_PLACE_SETTLE_MS after it last changed before it
   * is called corrupt.
   */
  keepInPlace?: {
    corruptError: (problem: string) => SwarmError;
    /**
     * Put back a file that settled empty from the last good text this process read or wrote (in
     * the same directory: not one deleted and made again since), keeping the empty file aside.
     * Called with where it was kept and when that text was read; it reports the restore.
     */
    restoreEmpty?: (restored: RestoredEmpty) => void;
  };
  /**
   * An empty (0-byte or blank) file reads as a missing one: an inbox that a proper-lockfile writer
   * (Claude Code) creates empty so that it can lock it, and fills under that lock. Nothing is lost
   * by reading it so (there is nothing in it), and moving it aside would pull it from under that writer.
   */
  emptyIsMissing?: boolean;
}

/** What `keepInPlace.restoreEmpty` is told: the empty file kept aside, and the text put back. */
export interface RestoredEmpty {
  file: string;
  keptAs: string;
  /** When this process last read (or wrote) the text it put back, epoch ms. */
  seenAt: number;
}

/**
 * How long after its last change a file kept in place may stay unparseable before it is called
 * corrupt, and how often it is read again meanwhile. Claude Code's unlocked in-place rewrite of
 * config.json (truncate, then write) takes well under a millisecond, but its process can be
 * descheduled between the two: a quarter second was not enough on a loaded machine (a real Claude
 * Code leader's config.json caught empty by `swarm shutdown`, CI on 2 cores with the suite beside
 * it). Two seconds only delays the error for a file broken in the last two seconds.
 */
const IN_PLACE_SETTLE_MS = 2000;
const IN_PLACE_REREAD_MS = 5;

export function defaultCorruptReporter(r: CorruptReport): void {
  const what =
    r.entries === undefined
      ? `${path.basename(r.file)} was corrupt (${r.problem}); kept as ${r.keptAs}, started a fresh file`
      : `${path.basename(r.file)} had ${r.problem}; moved to ${r.keptAs}, the other entries are kept`;
  process.stderr.write(`swarm: warning: ${what}\n`);
}

type Parsed<T> = { ok: true; value: T; text: string };
type Unparsed = { ok: false; problem: string; whole?: boolean };
type ParseResult<T> = Parsed<T> | Unparsed | { ok: 'missing' };

/** A read's result parsed: a symlink, a FIFO or any other odd entry in its place is an io error that names it (regular-file.ts). */
function parsedRead<T>(file: string, read: RegularRead, schema: z.ZodType<T>, emptyIsMissing = false): ParseResult<T> {
  if ('missing' in read) return { ok: 'missing' };
  if ('odd' in read) throw oddFileError(file, read.odd);
  if (emptyIsMissing && read.text.trim() === '') return { ok: 'missing' };
  return parseText(read.text, schema);
}

async function readAndParse<T>(file: string, schema: z.ZodType<T>, emptyIsMissing?: boolean): Promise<ParseResult<T>> {
  return parsedRead(file, await readRegularFile(file), schema, emptyIsMissing);
}

function readAndParseSync<T>(file: string, schema: z.ZodType<T>, emptyIsMissing?: boolean): ParseResult<T> {
  return parsedRead(file, readRegularFileSync(file), schema, emptyIsMissing);
}

/** `whole`: the text is complete JSON of the wrong shape, which no write in progress leaves behind. */
export function parseText<T>(raw: string, schema: z.ZodType<T>): Parsed<T> | Unparsed {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    return { ok: false, problem: raw.trim() === '' ? 'empty file' : `invalid JSON: ${(e as Error).message}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, problem: `unexpected shape at ${firstIssue(parsed.error, '(root)')}`, whole: true };
  }
  return { ok: true, value: parsed.data, text: raw };
}

/**
 * The last good text of each file kept in place that this process read or wrote, with the identity
 * of the directory it was in (inode and birth time: a directory deleted and made again is another).
 */
const lastGood = new Map<string, { text: string; dir: string; seenAt: number }>();

function dirIdentity(dir: string): string | undefined {
  try {
    const st = statSync(dir);
    return `${st.ino}:${st.birthtimeMs}`;
  } catch {
    return undefined;
  }
}

function rememberGood(file: string, text: string): void {
  const known = lastGood.get(file);
  if (known?.text === text) {
    known.seenAt = Date.now(); // the same text: no need to ask where it is again (config.json is read often)
    return;
  }
  const dir = dirIdentity(path.dirname(file));
  if (dir !== undefined) lastGood.set(file, { text, dir, seenAt: Date.now() });
}

/** A parsed read of a file kept in place, remembered for restoreEmptyInPlace. */
function remembered<T>(file: string, read: ParseResult<T>): ParseResult<T> {
  if (read.ok === true) rememberGood(file, read.text);
  return read;
}

/**
 * A file kept in place that settled empty, put back (under its lock, `held`) from the last good text
 * this process saw in the same directory: the empty file is kept aside, the text written atomically,
 * and `restoreEmpty` reports it. Undefined (nothing done) when the caller did not ask, the file is
 * not empty (half a write, or a person's edit: for a person to mend), or there is no such text; the
 * caller then reports the file as corrupt.
 */
async function restoreEmptyInPlace<T>(file: string, opts: Pick<JsonFileOptions<T>, 'schema' | 'keepInPlace'>, held: HeldLock): Promise<Parsed<T> | undefined> {
  const restoreEmpty = opts.keepInPlace?.restoreEmpty;
  const good = lastGood.get(file);
  if (restoreEmpty === undefined || good === undefined || good.dir !== dirIdentity(path.dirname(file))) return undefined;
  const value = parseText(good.text, opts.schema);
  if (value.ok !== true) return undefined;
  held.assertHeld(); // never write under a lock that is someone else's
  const now = readRegularFileSync(file); // read again right before: half a write is left for a person
  if (!('text' in now) || now.text.trim() !== '') return undefined;
  // Its bytes kept beside it, then the text renamed over it: never a moment without the file.
  const keptAs = await quarantine(file, Date.now(), now.text);
  writeFileAtomicSync(file, good.text);
  restoreEmpty({ file, keptAs, seenAt: good.seenAt });
  return value;
}

/**
 * Keep a corrupt file's bytes as `<file>.corrupt-<epochMs>` (never overwriting an earlier one) and
 * remove `file`. With `content`, keep that instead and leave `file` alone: the bad entries taken out
 * of a file whose other entries stay (the caller rewrites it).
 */
export async function quarantine(file: string, now = Date.now(), content?: string): Promise<string> {
  return content === undefined ? keepAside(file, CORRUPT_LABEL, now) : keepAsideContent(file, CORRUPT_LABEL, content, now);
}

/**
 * Read a file kept in place until it parses, is missing, is whole JSON of the wrong shape (no write
 * in progress looks like that), or it has stayed unparseable for IN_PLACE_SETTLE_MS since it last
 * changed (its last problem then), with the identity (fileIdentity) it had just before the read
 * that counts. A file last changed longer ago than that is no write in progress: its problem is
 * reported at once. Never longer than IN_PLACE_SETTLE_MS from the first read.
 */
async function settleInPlace<T>(file: string, schema: z.ZodType<T>): Promise<{ read: ParseResult<T>; identity: string }> {
  const latest = Date.now() + IN_PLACE_SETTLE_MS;
  for (;;) {
    const { identity, changedAt } = fileStamp(file);
    const read = readAndParseSync(file, schema);
    const deadline = changedAt === undefined ? latest : Math.min(latest, changedAt + IN_PLACE_SETTLE_MS);
    if (read.ok !== false || read.whole === true || Date.now() >= deadline) return { read, identity };
    await delay(IN_PLACE_REREAD_MS);
  }
}

/**
 * Read and parse `file` without taking the lock (writes are atomic, so this is safe).
 * Missing → `undefined`. Corrupt → re-checked under the lock, kept aside, then SwarmError('corrupt').
 */
export async function readJsonFile<T>(file: string, opts: Pick<JsonFileOptions<T>, 'schema' | 'lock' | 'keepInPlace' | 'emptyIsMissing'>): Promise<T | undefined> {
  const keep = opts.keepInPlace !== undefined;
  const read = await readAndParse(file, opts.schema, opts.emptyIsMissing);
  const first = keep ? remembered(file, read) : read;
  if (first.ok === 'missing') return undefined;
  if (first.ok) return first.value;
  return withFileLock(
    file,
    async (held) => {
      const again = keep ? remembered(file, (await settleInPlace(file, opts.schema)).read) : await readAndParse(file, opts.schema, opts.emptyIsMissing);
      if (again.ok === 'missing') return undefined;
      if (again.ok) return again.value;
      if (opts.keepInPlace) {
        const restored = await restoreEmptyInPlace(file, opts, held);
        if (restored) return restored.value;
        throw opts.keepInPlace.corruptError(again.problem);
      }
      const keptAs = await quarantine(file);
      throw new SwarmError('corrupt', `${file} was corrupt (${again.problem}); kept as ${keptAs}, and the next change starts the file afresh`);
    },
    opts.lock,
  );
}

/** What a mutation learns besides the current value. */
export interface MutateInfo {
  /** False when the file was missing (or corrupt and kept aside): `current` is `init()`. */
  existed: boolean;
  /** Check before a side effect of your own (e.g. an archive append) that the lock is still ours. */
  held: HeldLock;
  /** When this holder's first round began (Date.now()): what bounds its further rounds. */
  heldSince: number;
}

/** How often a read-modify-write starts over after its lock was taken over mid-cycle. */
const LOCK_LOST_RETRIES = 5;

/**
 * Locked read-modify-write. `fn` gets the current value (or `init()` for a missing file) and returns
 * `{ write, result }`: `write` (if defined) replaces the file atomically before the lock is released.
 *
 * Fenced: right before the rename the lock must still be ours and the file still the one read (same
 * inode, size and mtime); otherwise another writer took over while this one stalled, so the cycle is
 * discarded and run again on the current file — `fn` may run more than once and must not have side
 * effects beyond its return value (work that must follow the write goes in `afterWrite`, which runs
 * after it, still under the lock). An acknowledged write is therefore never overwritten by a stale copy.
 * With `stopWaiting`, a caller still waiting for the lock gives up once its `done()` is true and gets
 * STOPPED_WAITING (group commit: the holder did this caller's work).
 *
 * Rounds: while an outcome's `again()` says so (asked after its write and `afterWrite`), `fn` runs
 * once more under the same lock on the value just written (not read back: the file is fenced as
 * above), so a group-commit holder keeps merging what arrived meanwhile without handing the lock
 * over. The result is the first round's; a later round whose lock was taken over writes nothing and
 * ends the rounds (its work is left for the next holder).
 */
export async function mutateJsonFile<T, R>(file: string, opts: JsonFileOptions<T>, fn: Mutation<T, R>): Promise<R>;
export async function mutateJsonFile<T, R>(
  file: string,
  opts: JsonFileOptions<T>,
  fn: Mutation<T, R>,
  stopWaiting: StopWaiting,
): Promise<R | typeof STOPPED_WAITING>;
export async function mutateJsonFile<T, R>(
  file: string,
  opts: JsonFileOptions<T>,
  fn: Mutation<T, R>,
  stopWaiting?: StopWaiting,
): Promise<R | typeof STOPPED_WAITING> {
  for (let attempt = 0; ; attempt++) {
    try {
      const cycle = (held: HeldLock) => mutateLocked(file, opts, fn, held);
      return stopWaiting ? await withFileLock(file, cycle, opts.lock ?? {}, stopWaiting) : await withFileLock(file, cycle, opts.lock);
    } catch (e) {
      if (!isSwarmError(e, 'lock_lost') || attempt >= LOCK_LOST_RETRIES) throw e;
    }
  }
}

/**
 * A locked read-modify-write that never queues: one look at the lock, and the cycle runs only if the
 * lock is free (and nobody is in line for it); otherwise STOPPED_WAITING at once. For a caller with
 * other work to try first (a claimer passing over a task somebody is claiming right now).
 */
export async function mutateJsonFileIfFree<T, R>(file: string, opts: JsonFileOptions<T>, fn: Mutation<T, R>): Promise<R | typeof STOPPED_WAITING> {
  let looked = false;
  // withFileLock asks stopWaiting before each look: false the first time, true from then on.
  return mutateJsonFile(file, opts, fn, {
    done: () => {
      const stop = looked;
      looked = true;
      return stop;
    },
  });
}

/** What a mutation returns: the value to write (if any), its result, and work to do right after the write, still under the lock. */
export interface MutationOutcome<T, R> {
  write?: T;
  result: R;
  afterWrite?: () => void;
  /** Asked after the write and `afterWrite`: true runs the mutation another round under the same lock. */
  again?: () => boolean;
}

export type Mutation<T, R> = (current: T, info: MutateInfo) => MutationOutcome<T, R> | Promise<MutationOutcome<T, R>>;

async function mutateLocked<T, R>(
  file: string,
  opts: JsonFileOptions<T>,
  fn: Mutation<T, R>,
  held: HeldLock,
): Promise<R> {
  // Synchronous I/O from here to the write: the critical section never yields to the event loop
  // (except inside an async `fn`, or while a file kept in place settles), so the lock is held for as
  // short a time as possible.
  let before = fileIdentity(file);
  let read = readAndParseSync(file, opts.schema, opts.emptyIsMissing);
  if (read.ok === false && opts.keepInPlace) {
    ({ read, identity: before } = await settleInPlace(file, opts.schema));
    const restored = read.ok === false ? await restoreEmptyInPlace(file, opts, held) : undefined;
    if (restored) [read, before] = [restored, fileIdentity(file)];
  }
  if (opts.keepInPlace) remembered(file, read);
  let current: T;
  let existed = true;
  if (read.ok === 'missing') {
    current = opts.init();
    existed = false;
  } else if (read.ok) {
    current = read.value;
  } else {
    if (opts.keepInPlace) throw opts.keepInPlace.corruptError(read.problem);
    held.assertHeld(); // never move a file aside under a lock that is someone else's
    const keptAs = await quarantine(file);
    (opts.onCorrupt ?? defaultCorruptReporter)({ file, keptAs, problem: read.problem });
    current = opts.init();
    existed = false;
  }
  const heldSince = Date.now();
  // The file as this holder last saw it (undefined: none to compare, it was corrupt and kept aside).
  let expected = read.ok !== false ? before : undefined;
  let first: { result: R } | undefined;
  for (;;) {
    let outcome: MutationOutcome<T, R>;
    try {
      outcome = await fn(current, { existed, held, heldSince });
      if (outcome.write !== undefined) {
        held.assertHeld();
        if (expected !== undefined && fileIdentity(file) !== expected) {
          throw new SwarmError('lock_lost', `${file} changed under its lock (another writer took the lock over); nothing was written, try again`);
        }
        const text = formatJson(outcome.write);
        writeFileAtomicSync(file, text);
        if (opts.keepInPlace) rememberGood(file, text);
        current = outcome.write;
        existed = true;
        expected = fileIdentity(file);
      }
    } catch (e) {
      if (first !== undefined && isSwarmError(e, 'lock_lost')) return first.result; // a later round: its work waits for the next holder
      throw e;
    }
    first ??= { result: outcome.result };
    outcome.afterWrite?.();
    if (outcome.again?.() !== true) return first.result;
  }
}

/** inode, size and mtime of `file` ("missing" when absent): what a fenced write compares. */
function fileIdentity(file: string): string {
  return fileStamp(file).identity;
}

/** fileIdentity, and when the file last changed (ms since the epoch; undefined when missing). */
function fileStamp(file: string): { identity: string; changedAt?: number } {
  try {
    const st = statSync(file, { bigint: true });
    return { identity: `${st.ino}:${st.size}:${st.mtimeNs}`, changedAt: Number(st.mtimeNs / 1_000_000n) };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { identity: 'missing' };
    throw new SwarmError('io', `cannot stat ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** Locked update that always writes the value `fn` returns; resolves to it. */
export async function updateJsonFile<T>(file: string, opts: JsonFileOptions<T>, fn: (current: T) => T | Promise<T>): Promise<T> {
  return mutateJsonFile(file, opts, async (current) => {
    const next = await fn(current);
    return { write: next, result: next };
  });
}
