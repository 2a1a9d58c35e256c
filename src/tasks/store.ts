// The task list's files (docs/protocol.md#task-list), Claude Code's layout under `<root>/tasks/<team>/`:
//   <id>.json          one task, pretty-printed; written atomically 0600 (Claude Code's own 0644
//                      files are read as they are, and only a rewrite makes them 0600)
//   .lock              empty; the list lock's target (proper-lockfile lock dir `.lock.lock`)
//   .highwatermark     decimal text: the highest id ever issued (raised by a delete)
//   <id>.json.lock/    a task's lock directory (transient)
// Locking rule: one task's change holds its own lock (storage/json-file's locked update); creating,
// deleting, or a change that touches two tasks (blocks/blockedBy) holds the list lock, then the task
// locks in ascending id order (so two such changes never wait on each other in a circle), and
// validates everything before it writes anything. A task file that does not parse, or whose `id` is
// not the one its name says, is kept aside as `<id>.json.corrupt-<epochMs>` (never overwritten or
// rewritten) and reported; its id is never issued again.
// Odd entries: only regular files are read (storage/regular-file: no symlink followed, no FIFO
// waited on). A task name that is a symlink, FIFO, directory, ... is skipped and reported by name,
// never read; so is a name or `.highwatermark` whose number leaves no next id (>= MAX_TASK_ID): it is
// not counted when numbering, so adds keep working.
import { readdirSync, rmSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { isTaskId, MAX_TASK_ID, taskFileSchema, type Task } from '../protocol/task.js';
import { ensureDir, FILE_MODE, formatJson, fsyncDir, writeFileAtomic, writeFileAtomicSync } from '../storage/atomic.js';
import { parseText, quarantine } from '../storage/json-file.js';
import { withFileLock, type HeldLock, type LockOptions } from '../storage/lock.js';
import { describeOdd, entryKind, oddFileError, readRegularFileSync, type OddKind } from '../storage/regular-file.js';
import type { TaskListPaths } from '../team/paths.js';
import { TaskError } from './errors.js';

/** A task file that did not parse, and where its bytes were kept. */
export interface CorruptTask {
  file: string;
  keptAt: string;
  error: string;
}

/** A name in the list directory that is not read as a task, and why: by name only, never its content. */
export interface SkippedEntry {
  file: string;
  /** What is wrong and what swarm does about it, starting with the file. */
  problem: string;
  /** The command or step that clears it. */
  fix: string;
}

/** Why a task named in a change could not be read: kept aside as corrupt, or skipped. */
export type Unreadable = { corrupt: CorruptTask } | { skipped: SkippedEntry };

export type LoadedTask = { task: Task } | { missing: true } | Unreadable;

function oddEntry(file: string, kind: OddKind): SkippedEntry {
  return { file, problem: `${file} is ${describeOdd(kind)}, not a regular file: skipped, never read`, fix: `remove it (${kind === 'directory' ? 'rmdir' : 'rm'} '${file}')` };
}

function pastLastId(file: string, digits: string): SkippedEntry {
  if (isTaskId(digits)) {
    return {
      file,
      problem: `${file} has the highest task id there can be (${MAX_TASK_ID}): it is listed, but new ids are numbered after the other tasks`,
      fix: `rename it to a free id and set its "id" to match, or remove it`,
    };
  }
  return {
    file,
    problem: `${file} is past the highest task id (${MAX_TASK_ID}): not listed, and not counted when numbering new tasks`,
    fix: `rename it to a free id and set its "id" to match, or remove it`,
  };
}

export function byId(a: string, b: string): number {
  return Number(a) - Number(b);
}

/** The list directory (0700) and its `.lock` file (0600), as Claude Code makes them before locking. */
export async function ensureList(paths: TaskListPaths): Promise<void> {
  await ensureDir(paths.dir);
  try {
    await fs.writeFile(paths.lock, '', { flag: 'wx', mode: FILE_MODE });
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') throw new SwarmError('io', `cannot create ${paths.lock}: ${(e as Error).message}`, { cause: e });
  }
}

/** Every name that may be a task's (`<digits>.json` and its kept-aside copies `<digits>.json.<...>`). */
const TASK_NAME_RE = /^([1-9][0-9]*)\.json(.*)$/;

/** What the list directory holds by name (nothing read or stat-ed): see idsOnDisk. */
export interface TaskDir {
  /** The ids of the `<id>.json` names, ascending (what they are is found when they are read). */
  ids: string[];
  /** The highest number any name starts with (kept-aside copies too), below MAX_TASK_ID. */
  highest: number;
  /** `<id>.json` names past MAX_TASK_ID (or at it: listed, not counted). */
  skipped: SkippedEntry[];
  /** Some name starts with MAX_TASK_ID itself: the one id `highest` does not count is taken. */
  lastTaken: boolean;
}

/**
 * The task files by name, and the highest id any name starts with (kept-aside copies and odd
 * entries too: their ids are never issued again). A number at or past MAX_TASK_ID is not counted:
 * it would leave no next id, and every add would fail.
 */
export function idsOnDisk(paths: TaskListPaths): TaskDir {
  let names: string[];
  try {
    names = readdirSync(paths.dir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { ids: [], highest: 0, skipped: [], lastTaken: false };
    throw new SwarmError('io', `cannot list ${paths.dir}: ${(e as Error).message}`, { cause: e });
  }
  const ids: string[] = [];
  const skipped: SkippedEntry[] = [];
  let highest = 0;
  let lastTaken = false;
  for (const name of names) {
    const m = TASK_NAME_RE.exec(name);
    if (!m) continue;
    const [, digits, rest] = m as unknown as [string, string, string];
    const file = path.join(paths.dir, name);
    const counted = digits.length <= 15 && Number(digits) < MAX_TASK_ID;
    if (counted) highest = Math.max(highest, Number(digits));
    if (digits === String(MAX_TASK_ID)) lastTaken = true;
    if (rest !== '') continue;
    if (!counted) skipped.push(pastLastId(file, digits));
    if (isTaskId(digits)) ids.push(digits);
  }
  return { ids: ids.sort(byId), highest, skipped, lastTaken };
}

/** `.highwatermark` as read: its number (0 when missing or unusable) and, when unusable, why. */
interface Mark {
  value: number;
  /** Set when the mark is there but not used: junk, past MAX_TASK_ID, or an odd entry. */
  skipped?: SkippedEntry;
  /** Set for an odd entry: nothing may be numbered while its value is unknown. */
  odd?: OddKind;
}

function readMark(paths: TaskListPaths): Mark {
  const file = paths.highwatermark;
  const read = readRegularFileSync(file);
  if ('missing' in read) return { value: 0 };
  if ('odd' in read) {
    const skipped = oddEntry(file, read.odd);
    return { value: 0, odd: read.odd, skipped: { ...skipped, problem: `${skipped.problem}; no task can be added or deleted until it is gone` } };
  }
  const text = read.text.trim();
  if (text === '') return { value: 0 };
  const digits = /^[0-9]+$/.test(text);
  if (digits && Number(text) < MAX_TASK_ID) return { value: Number(text) };
  const what = digits ? `holds ${text.length <= 20 ? text : `a ${text.length}-digit number`}, past the highest task id (${MAX_TASK_ID})` : 'is not a whole number';
  return {
    value: 0,
    skipped: {
      file,
      problem: `${file} ${what}: not counted when numbering new tasks (the next delete keeps it aside and writes a new one)`,
      fix: `put the highest id ever issued in it, at least the highest in use (echo ${idsOnDisk(paths).highest} > '${file}'), or remove it`,
    },
  };
}

/** The high-water mark; 0 when missing or unusable (see readMark). Throws for an odd entry (a FIFO: its value is unknown). */
export function readHighwatermark(paths: TaskListPaths): number {
  const mark = readMark(paths);
  if (mark.odd !== undefined) throw oddFileError(paths.highwatermark, mark.odd);
  return mark.value;
}

/** `.highwatermark`'s problem when it is there but not used (junk, past MAX_TASK_ID, an odd entry). */
export function markProblem(paths: TaskListPaths): SkippedEntry | undefined {
  return readMark(paths).skipped;
}

/**
 * Every name of the list that is not read as a task, and an unusable `.highwatermark`, found by
 * name and lstat alone (no task is read): what doctor reports. A listing finds the odd entries as
 * it reads (TaskList.list), through the descriptor it reads from.
 */
export function scanList(paths: TaskListPaths): SkippedEntry[] {
  const { ids, skipped } = idsOnDisk(paths);
  for (const id of ids) {
    const kind = entryKind(paths.task(id));
    if (kind !== 'file' && kind !== 'missing') skipped.push(oddEntry(paths.task(id), kind));
  }
  const mark = markProblem(paths);
  return mark ? [...skipped, mark] : skipped;
}

/** Raise `.highwatermark` to `id` (never lowers it; an unusable one is kept aside first). Call under the list lock. */
export async function raiseHighwatermark(paths: TaskListPaths, id: number, now = Date.now()): Promise<void> {
  const mark = readMark(paths);
  if (mark.odd !== undefined) throw oddFileError(paths.highwatermark, mark.odd);
  if (mark.value >= id) return;
  if (mark.skipped) await quarantine(paths.highwatermark, now);
  await writeFileAtomic(paths.highwatermark, String(id));
}

/**
 * The next id: max(file names, `.highwatermark`) + 1, both counted below MAX_TASK_ID, so it is at most
 * MAX_TASK_ID; refused once that one is taken too. Call under the list lock.
 */
export function nextId(paths: TaskListPaths): string {
  const dir = idsOnDisk(paths);
  const next = Math.max(dir.highest, readHighwatermark(paths)) + 1;
  if (next === MAX_TASK_ID && dir.lastTaken) {
    throw new TaskError('invalid', `no task id is left: ids go up to ${MAX_TASK_ID} and the ones below are issued; give the highest tasks lower free ids (rename <id>.json and set its "id"), or remove them`);
  }
  return String(next);
}

type ParsedTask = { ok: true; value: Task } | { ok: false; problem: string } | { ok: 'missing' } | { ok: 'odd'; kind: OddKind };

/** Task `id`'s file, read only if it is a regular file, and parsed; one that holds another id does not parse. */
function parseTask(paths: TaskListPaths, id: string): ParsedTask {
  const read = readRegularFileSync(paths.task(id));
  if ('missing' in read) return { ok: 'missing' };
  if ('odd' in read) return { ok: 'odd', kind: read.odd };
  return parseText(read.text, taskFileSchema(id));
}

/** A task, lock-free; undefined when missing or unreadable (no quarantine: a blocker check). */
export function peekTask(paths: TaskListPaths, id: string): Task | undefined {
  const r = parseTask(paths, id);
  return r.ok === true ? r.value : undefined;
}

/** What is at task `id`'s name without reading it: nothing (undefined) to refuse, or why it is no task file. */
export function unreadableEntry(paths: TaskListPaths, id: string): { missing: true } | { skipped: SkippedEntry } | undefined {
  const file = paths.task(id);
  const kind = entryKind(file);
  if (kind === 'file') return undefined;
  return kind === 'missing' ? { missing: true } : { skipped: oddEntry(file, kind) };
}

/** Keep a corrupt task file aside (under its lock, held by the caller). */
async function keepCorrupt(file: string, problem: string, held: HeldLock, now: number): Promise<CorruptTask> {
  held.assertHeld();
  const keptAt = await quarantine(file, now);
  return { file, keptAt, error: problem };
}

/**
 * Read one task. A file that does not parse is read again under the list lock and then its own lock
 * (Claude Code writes in place: it creates a task under the list lock, truncating the new file
 * before it writes it, and updates one under the task's lock), so one caught mid-write is read
 * whole; still bad with both held, it is kept aside and reported as corrupt. `listHeld`: the caller
 * already holds the list lock.
 */
export async function loadTask(
  paths: TaskListPaths,
  id: string,
  opts: { lock?: LockOptions; now: () => number; listHeld?: boolean },
): Promise<LoadedTask> {
  const file = paths.task(id);
  const seen = (r: ParsedTask): LoadedTask | undefined => {
    if (r.ok === 'missing') return { missing: true };
    if (r.ok === 'odd') return { skipped: oddEntry(file, r.kind) };
    return r.ok ? { task: r.value } : undefined;
  };
  const first = seen(parseTask(paths, id));
  if (first) return first;
  const underTaskLock = (): Promise<LoadedTask> =>
    withFileLock(
      file,
      async (held): Promise<LoadedTask> => {
        const again = parseTask(paths, id);
        if (again.ok === false) return { corrupt: await keepCorrupt(file, again.problem, held, opts.now()) };
        return seen(again)!;
      },
      opts.lock,
    );
  return opts.listHeld === true ? underTaskLock() : withFileLock(paths.lock, underTaskLock, opts.lock);
}

/** The error for a task that is not there, was corrupt (and is now kept aside), or is no regular file. */
export function notFound(id: string, why?: Unreadable): TaskError {
  if (why && 'corrupt' in why) {
    const c = why.corrupt;
    return new TaskError('not_found', `task ${id} was corrupt (${c.error}); kept as ${c.keptAt}: recreate it with swarm tasks add`);
  }
  if (why) return new TaskError('not_found', `task ${id} cannot be read: ${why.skipped.problem}; ${why.skipped.fix}`);
  return new TaskError('not_found', `no task ${id} (see swarm tasks list)`);
}

/** What a change under several locks does once everything is validated. */
export interface GroupChange<R> {
  write?: Task[];
  remove?: string[];
  result: R;
}

/**
 * Run `fn` holding the list lock, then the locks of `ids` in ascending order, with those tasks read
 * under their locks (a missing one is absent from both maps; a corrupt one is kept aside, and it and
 * an odd entry are in `unreadable` instead).
 * `fn` validates and returns what to write and remove: nothing is written when it throws.
 */
export async function withTaskGroup<R>(
  paths: TaskListPaths,
  ids: readonly string[],
  opts: { lock?: LockOptions; now: () => number },
  fn: (tasks: Map<string, Task>, unreadable: Map<string, Unreadable>) => Promise<GroupChange<R>> | GroupChange<R>,
): Promise<R> {
  await ensureList(paths);
  const order = [...new Set(ids)].sort(byId);
  return withFileLock(paths.lock, (listHeld) => lockEach(order, [listHeld]), opts.lock);

  async function lockEach(rest: readonly string[], held: HeldLock[]): Promise<R> {
    if (rest.length > 0) {
      return withFileLock(paths.task(rest[0]!), (h) => lockEach(rest.slice(1), [...held, h]), opts.lock);
    }
    const tasks = new Map<string, Task>();
    const unreadable = new Map<string, Unreadable>();
    for (const [i, id] of order.entries()) {
      const file = paths.task(id);
      const r = parseTask(paths, id);
      if (r.ok === true) tasks.set(id, r.value);
      else if (r.ok === false) unreadable.set(id, { corrupt: await keepCorrupt(file, r.problem, held[i + 1]!, opts.now()) });
      else if (r.ok === 'odd') unreadable.set(id, { skipped: oddEntry(file, r.kind) });
    }
    const change = await fn(tasks, unreadable);
    for (const h of held) h.assertHeld();
    for (const t of change.write ?? []) writeFileAtomicSync(paths.task(t.id), formatJson(t));
    for (const id of change.remove ?? []) rmSync(paths.task(id), { force: true });
    if ((change.remove ?? []).length > 0) await fsyncDir(paths.dir);
    return change.result;
  }
}
