// The permission audit log: teams/<team>/permissions/audit.jsonl, one JSON object per line
// (AuditEventSchema), append-only.
//
// Writing: each call is one O_APPEND write of whole lines followed by fsync (appendFileDurable), so
// lines from concurrent processes never interleave on a local file system and a crash loses at most
// the line being written. No lock: nothing ever rewrites the file.
// Reading: every line is parsed with zod; a line that is not JSON or not an event (e.g. cut short by
// a crash) is skipped and reported through `onBadLine`, never fatal.
//
// Which events end a request (so it is never listed or materialised again): decision, timeout,
// cancelled, cleared. `request` and `forged` do not.
import { promises as fs } from 'node:fs';
import { AuditEventSchema, type AuditEvent } from '../protocol/permission.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { appendFileDurable, ensureDir, refuseLinkedDir } from '../storage/atomic.js';
import type { TeamPaths } from '../team/paths.js';

export const ENDING_EVENTS: ReadonlySet<AuditEvent['event']> = new Set(['decision', 'timeout', 'cancelled', 'cleared']);

/** Append events (validated) as lines of audit.jsonl, in one durable write. */
export async function appendAudit(paths: TeamPaths, ...events: AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  const lines = events.map((e) => JSON.stringify(AuditEventSchema.parse(e))).join('\n');
  refuseLinkedDir(paths.permissions);
  await ensureDir(paths.permissions);
  await appendFileDurable(paths.audit, `${lines}\n`);
}

export interface ReadAuditOptions {
  /** Called for a line that does not parse (1-based line number). */
  onBadLine?: (line: number, problem: string) => void;
}

/** Every event in audit.jsonl, oldest first; a missing file is an empty log. */
export async function readAudit(paths: TeamPaths, opts: ReadAuditOptions = {}): Promise<AuditEvent[]> {
  refuseLinkedDir(paths.permissions);
  let raw: string;
  try {
    raw = await fs.readFile(paths.audit, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw new SwarmError('io', `cannot read ${paths.audit}: ${(e as Error).message}`, { cause: e });
  }
  const out: AuditEvent[] = [];
  const lines = raw.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (e) {
      opts.onBadLine?.(i + 1, `not JSON: ${(e as Error).message}`);
      return;
    }
    const parsed = AuditEventSchema.safeParse(json);
    if (parsed.success) out.push(parsed.data);
    else opts.onBadLine?.(i + 1, parsed.error.issues[0]?.message ?? 'not an audit event');
  });
  return out;
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
