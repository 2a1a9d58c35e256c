// JSON Lines logs (the permission audit, transcripts, the acted-on log, inbox archives): one JSON
// value per line, each line appended whole with its `\n`. The one reading rule, for every caller:
//   - A missing file has no lines. A path that is not a regular file (a symlink, a FIFO, a
//     directory) is never read: SwarmError('io') saying to remove it (regular-file.ts). Any other
//     read failure is SwarmError('io') naming the file: never read as empty.
//   - Torn last line: text after the last `\n` is a line whose append a crash cut short. It is not
//     written yet: never parsed, never a value, never called corrupt; `torn` says where it starts.
//     A later append must not glue onto it: `appendJsonlSync` cuts it off first (a log with one
//     writer at a time); the audit log, which nothing rewrites, ends it instead (permissions/audit.ts).
//   - A blank line is no entry (it is in `lines`, marked blank, for a check over the raw lines).
//   - A bad whole line (not JSON, or refused by the caller's `check`) is corrupt: returned with its
//     number and why, and left in the file as it is (a log is evidence: nothing here rewrites or
//     drops it). The caller reports it or refuses the file, never treats it as absent.
// `\r\n` endings need nothing: JSON.parse takes the `\r` for whitespace.
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { errnoCode } from '../protocol/errors.js';
import { appendFileDurableSync } from './atomic.js';
import { oddFileError, readRegularFile, readRegularFileSync, type RegularRead } from './regular-file.js';

/** A caller's check of one parsed line: its value, or why the line is bad. */
export type LineCheck<T> = (json: unknown) => { ok: true; value: T } | { ok: false; problem: string };

/** One whole line (1-based `line`, `text` without its `\n`): a value, a bad line, or a blank one. */
export type JsonlLine<T> = { line: number; text: string } & ({ value: T } | { problem: string } | { blank: true });

export interface JsonlText<T> {
  /** Every whole line, in order. */
  lines: JsonlLine<T>[];
  /** The torn last line: its number, its text, and where it starts (bytes from the file's start). */
  torn?: { line: number; text: string; offset: number };
}

/** The values of the good lines, in order. */
export function jsonlValues<T>(read: JsonlText<T>): T[] {
  return read.lines.flatMap((l) => ('value' in l ? [l.value] : []));
}

/** The bad lines (corrupt: report them or refuse the file), in order. */
export function jsonlBadLines<T>(read: JsonlText<T>): { line: number; text: string; problem: string }[] {
  return read.lines.flatMap((l) => ('problem' in l ? [l] : []));
}

const anyValue: LineCheck<unknown> = (json) => ({ ok: true, value: json });

/** Split and parse JSONL text by the rule above. */
export function parseJsonl<T = unknown>(text: string, check: LineCheck<T> = anyValue as LineCheck<T>): JsonlText<T> {
  const end = text.lastIndexOf('\n') + 1; // where the torn last line starts (0: no whole line)
  const whole = end === 0 ? [] : text.slice(0, end - 1).split('\n');
  const lines = whole.map((t, i): JsonlLine<T> => {
    const at = { line: i + 1, text: t };
    if (t.trim() === '') return { ...at, blank: true };
    let json: unknown;
    try {
      json = JSON.parse(t);
    } catch (e) {
      return { ...at, problem: `not JSON: ${(e as Error).message}` };
    }
    const c = check(json);
    return c.ok ? { ...at, value: c.value } : { ...at, problem: c.problem };
  });
  if (end === text.length) return { lines };
  return { lines, torn: { line: whole.length + 1, text: text.slice(end), offset: Buffer.byteLength(text.slice(0, end)) } };
}

function fromRead<T>(file: string, r: RegularRead, check: LineCheck<T> | undefined): JsonlText<T> {
  if ('odd' in r) throw oddFileError(file, r.odd);
  if ('missing' in r) return { lines: [] };
  return parseJsonl(r.text, check);
}

/** Read and parse the JSONL file `file` by the rule above. */
export async function readJsonl<T = unknown>(file: string, check?: LineCheck<T>): Promise<JsonlText<T>> {
  return fromRead(file, await readRegularFile(file), check);
}

/** readJsonl, synchronously (a runtime loading its state before its first round). */
export function readJsonlSync<T = unknown>(file: string, check?: LineCheck<T>): JsonlText<T> {
  return fromRead(file, readRegularFileSync(file), check);
}

/** Cut a torn last line off `file` (nothing to do when it is missing, empty or ends with `\n`). */
function cutTornLineSync(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if (['ENOENT', 'ELOOP', 'ENXIO', 'EISDIR'].includes(errnoCode(e) ?? '')) return; // the append says what it is
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, st.size - 1);
    if (last[0] === 0x0a) return;
    let keep = 0;
    for (let pos = st.size; pos > 0 && keep === 0; ) {
      const start = Math.max(0, pos - 65_536);
      const buf = Buffer.alloc(pos - start);
      readSync(fd, buf, 0, buf.length, start);
      const nl = buf.lastIndexOf(0x0a);
      if (nl >= 0) keep = start + nl + 1;
      pos = start;
    }
    ftruncateSync(fd, keep);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Append `values` as lines of `file` durably (appendFileDurableSync), after cutting off a torn last
 * line, so no line is glued onto it. For a log with one writer at a time (its only process, or
 * under the caller's lock).
 */
export function appendJsonlSync(file: string, values: readonly unknown[]): void {
  if (values.length === 0) return;
  cutTornLineSync(file);
  appendFileDurableSync(file, values.map((v) => `${JSON.stringify(v)}\n`).join(''));
}
