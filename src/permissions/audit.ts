// The permission audit log: teams/<team>/permissions/audit.jsonl, one JSON object per line
// (AuditEventSchema), append-only.
//
// Writing: under the log's lock (`audit.jsonl.lock`), each call reads the last line and appends its
// lines in one O_APPEND write followed by fsync (appendFileDurable); nothing ever rewrites the file.
// A crash loses at most the line being written (a cut line is ended before the next append).
// Tamper evidence: every line carries `prev`, the sha256 of the line before it (of "" for the
// first), so editing or deleting a line breaks the chain at the next one (`verifyAuditChain`,
// checked by `swarm doctor`). Not a signature: a process of the same user can rewrite the whole
// file consistently, and cutting lines off the end leaves no trace.
// Acting and auditing (issue 30): what must be audited (a decision, a rule change) checks first that
// the log can be appended to (`assertAuditWritable`, inside the caller's locked step, before
// anything is sent or written) and does nothing when it cannot. If the append still fails after
// the act (the disk filled up meanwhile), the error says exactly what was done and that its line
// is missing (`unaudited`), and the command exits 1 like any failure: the act stands, the audit
// promise of docs/protocol.md#audit-log does not.
// Reading (storage/jsonl.ts): a torn last line is not written yet; every whole line is parsed with
// zod; a line that is not JSON or not an event is skipped and reported through `onBadLine`, never
// fatal (an append-only log cannot be repaired, and requests must still be answerable).
//
// Which events end a request (so it is never listed or materialised again): decision, timeout,
// cancelled, cleared. `request` (first, or asking again) reopens it; `forged` and the rest
// (`acted`, `rule`, `plan`, `shutdown`, `mode`) record what happened around requests.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { AuditEventSchema, type AuditEvent } from '../protocol/permission.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { appendFileDurable, checkAppendable, ensureDir, refuseLinkedDir } from '../storage/atomic.js';
import { jsonlBadLines, jsonlValues, readJsonl, type LineCheck } from '../storage/jsonl.js';
import { withFileLock } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';

export const ENDING_EVENTS: ReadonlySet<AuditEvent['event']> = new Set(['decision', 'timeout', 'cancelled', 'cleared']);

/** `sha256:<hex>` of a line's text (without its newline): the next line's `prev`. */
export function lineDigest(line: string): string {
  return `sha256:${createHash('sha256').update(line, 'utf8').digest('hex')}`;
}

/** The last line of `file` (without its newline) and whether the file ends with one; undefined when empty or missing. */
async function lastLine(file: string): Promise<{ line: string; ended: boolean } | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const { size } = await handle.stat();
    if (size === 0) return undefined;
    for (let chunk = 4096; ; chunk *= 4) {
      const start = Math.max(0, size - chunk);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      const ended = buf[buf.length - 1] === 0x0a;
      const body = ended ? buf.subarray(0, buf.length - 1) : buf;
      const nl = body.lastIndexOf(0x0a);
      if (nl >= 0 || start === 0) return { line: body.subarray(nl + 1).toString('utf8'), ended };
    }
  } finally {
    await handle.close();
  }
}

/** Append events (validated) as lines of audit.jsonl, chained by `prev`, in one durable write under the log's lock. */
export async function appendAudit(paths: TeamPaths, ...events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  const parsed = events.map((e) => {
    const { prev: _prev, ...rest } = AuditEventSchema.parse(e);
    return rest;
  });
  refuseLinkedDir(paths.permissions);
  await ensureDir(paths.permissions);
  await withFileLock(paths.audit, async (held) => {
    const last = await lastLine(paths.audit);
    let prev = lineDigest(last?.line ?? '');
    const lines = parsed.map((e) => {
      const line = JSON.stringify({ ...e, prev });
      prev = lineDigest(line);
      return line;
    });
    held.assertHeld(); // a writer that stalled past the stale window would fork the chain
    await appendFileDurable(paths.audit, `${last && !last.ended ? '\n' : ''}${lines.join('\n')}\n`);
  });
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Before an act that must be audited: throws SwarmError('io') `<notDone>: the audit log … cannot be
 * written (…); nothing was changed` unless audit.jsonl can be appended to (created if missing).
 * `notDone` says what did not happen, e.g. "perm-1-a was not approved".
 */
export async function assertAuditWritable(paths: TeamPaths, notDone: string): Promise<void> {
  try {
    refuseLinkedDir(paths.permissions);
    await ensureDir(paths.permissions);
    await checkAppendable(paths.audit);
  } catch (e) {
    throw new SwarmError('io', `${notDone}: the audit log ${paths.audit} cannot be written (${reason(e)}); nothing was changed`, { cause: e });
  }
}

/** The error for an audit line that failed after its act was done: `<done>; the audit line could not be written: …`. */
export function unaudited(paths: TeamPaths, done: string, e: unknown): SwarmError {
  return new SwarmError('io', `${done}; the audit line could not be written to ${paths.audit}: ${reason(e)}`, { cause: e });
}

/** Where the chain of `prev` digests breaks: the 1-based line and why. */
export interface ChainBreak {
  line: number;
  problem: string;
}

/**
 * Check every `prev` of audit.jsonl against the line before it (its whole lines: a torn last line is
 * not written yet, storage/jsonl.ts; appendAudit ends it and chains on from it). Lines written
 * before chaining (no `prev`) are accepted only before the first chained line; a blank or bad line
 * has no `prev`. A missing file is an intact log.
 */
export async function verifyAuditChain(paths: TeamPaths): Promise<{ lines: number; breaks: ChainBreak[] }> {
  refuseLinkedDir(paths.permissions);
  const { lines } = await readJsonl(paths.audit);
  const breaks: ChainBreak[] = [];
  let chained = false;
  lines.forEach((l, i) => {
    const value = 'value' in l ? l.value : undefined;
    const prev = typeof value === 'object' && value !== null ? (value as { prev?: unknown }).prev : undefined;
    if (prev === undefined) {
      if (chained) breaks.push({ line: l.line, problem: 'has no prev digest after the chain began (added or edited by hand?)' });
      return;
    }
    chained = true;
    if (prev === lineDigest(i === 0 ? '' : lines[i - 1]!.text)) return;
    // The first line follows the empty log: there is no "line 0" to blame.
    const problem = i === 0 ? 'does not start the chain (its prev is not that of an empty log: the lines before it were removed, or it was edited)' : `does not follow line ${i} (line ${i} was edited, or lines between were removed)`;
    breaks.push({ line: l.line, problem });
  });
  return { lines: lines.length, breaks };
}

export interface ReadAuditOptions {
  /** Called for a bad line (1-based line number): it is skipped, never fatal (the log is never rewritten). */
  onBadLine?: (line: number, problem: string) => void;
}

const auditEvent: LineCheck<AuditEvent> = (json) => {
  const parsed = AuditEventSchema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, problem: parsed.error.issues[0]?.message ?? 'not an audit event' };
};

/** Every event in audit.jsonl, oldest first (storage/jsonl.ts's rule); a missing file is an empty log. */
export async function readAudit(paths: TeamPaths, opts: ReadAuditOptions = {}): Promise<AuditEvent[]> {
  refuseLinkedDir(paths.permissions);
  const read = await readJsonl(paths.audit, auditEvent);
  for (const bad of jsonlBadLines(read)) opts.onBadLine?.(bad.line, bad.problem);
  return jsonlValues(read);
}

/**
 * The event that ended each request, by id (the first one, if several). A later `request` line for
 * the same id reopens it: a worker asking again after refusing a decision that did not bind.
 */
export function endedRequests(events: readonly AuditEvent[]): Map<string, AuditEvent> {
  const ended = new Map<string, AuditEvent>();
  for (const e of events) {
    if (e.event === 'request') ended.delete(e.id);
    else if (ENDING_EVENTS.has(e.event) && !ended.has(e.id)) ended.set(e.id, e);
  }
  return ended;
}

/** The event that ended request `id`, if any. */
export async function endingEvent(paths: TeamPaths, id: string): Promise<AuditEvent | undefined> {
  return endedRequests(await readAudit(paths)).get(id);
}

/** The reason recorded when nobody answered in time: `no answer within 30s` (`0.3s` below a second). */
export function noAnswerWithin(timeoutMs: number): string {
  return `no answer within ${Number((timeoutMs / 1000).toFixed(timeoutMs < 10_000 ? 1 : 0))}s`;
}
