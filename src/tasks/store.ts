// The task list's files (SPEC §8), Claude Code's layout under `<root>/tasks/<team>/`:
//   <id>.json          one task, pretty-printed; written atomically 0600 (Claude Code's own 0644
//                      files are read as they are, and only a rewrite makes them 0600)
//   .lock              empty; the list lock's target (proper-lockfile lock dir `.lock.lock`)
//   .highwatermark     decimal text: the highest id ever issued (raised by a delete)
//   <id>.json.lock/    a task's lock directory (transient)
// Locking rule: one task's change holds its own lock (storage/json-file's locked update); creating,
// deleting, or a change that touches two tasks (blocks/blockedBy) holds the list lock, then the task
// locks in ascending id order (so two such changes never wait on each other in a circle), and
// validates everything before it writes anything. A task file that does not parse is kept aside as
// `<id>.json.corrupt-<epochMs>` (never overwritten) and reported; its id is never issued again.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { TaskSchema, type Task } from '../protocol/task.js';
import { ensureDir, FILE_MODE, formatJson, fsyncDir, writeFileAtomic, writeFileAtomicSync } from '../storage/atomic.js';
import { parseText, quarantine } from '../storage/json-file.js';
import { withFileLock, type HeldLock, type LockOptions } from '../storage/lock.js';
import type { TaskListPaths } from '../team/paths.js';
import { TaskError } from './errors.js';

/** A task file that did not parse, and where its bytes were kept. */
export interface CorruptTask {
  file: string;
  keptAt: string;
  error: string;
}

export type LoadedTask = { task: Task } | { missing: true } | { corrupt: CorruptTask };

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

/** The ids of the task files, ascending, and the highest id any file name starts with (kept-aside copies too). */
export function idsOnDisk(paths: TaskListPaths): { ids: string[]; highest: number } {
  let names: string[];
  try {
    names = readdirSync(paths.dir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { ids: [], highest: 0 };
    throw new SwarmError('io', `cannot list ${paths.dir}: ${(e as Error).message}`, { cause: e });
  }
  const ids: string[] = [];
  let highest = 0;
  for (const name of names) {
    const m = /^([1-9][0-9]{0,14})\.json(.*)$/.exec(name);
    if (!m) continue;
    highest = Math.max(highest, Number(m[1]));
    if (m[2] === '') ids.push(m[1]!);
  }
  return { ids: ids.sort(byId), highest };
}

export function readHighwatermark(paths: TaskListPaths): number {
  try {
    const n = Number(readFileSync(paths.highwatermark, 'utf8').trim());
    return Number.isSafeInteger(n) && n > 0 ? n : 0;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return 0;
    throw new SwarmError('io', `cannot read ${paths.highwatermark}: ${(e as Error).message}`, { cause: e });
  }
}

/** Raise `.highwatermark` to `id` (never lowers it). Call under the list lock. */
export async function raiseHighwatermark(paths: TaskListPaths, id: number): Promise<void> {
  if (readHighwatermark(paths) >= id) return;
  await writeFileAtomic(paths.highwatermark, String(id));
}

/** The next id: max(file names, `.highwatermark`) + 1. Call under the list lock. */
export function nextId(paths: TaskListPaths): string {
  return String(Math.max(idsOnDisk(paths).highest, readHighwatermark(paths)) + 1);
}

function parseTask(file: string): { ok: true; value: Task } | { ok: false; problem: string } | { ok: 'missing' } {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { ok: 'missing' };
    throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseText(raw, TaskSchema);
}

/** A task file's task, lock-free; undefined when missing or unreadable (no quarantine: a blocker check). */
export function peekTask(file: string): Task | undefined {
  const r = parseTask(file);
  return r.ok === true ? r.value : undefined;
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
  const first = parseTask(file);
  if (first.ok === 'missing') return { missing: true };
  if (first.ok) return { task: first.value };
  const underTaskLock = (): Promise<LoadedTask> =>
    withFileLock(
      file,
      async (held): Promise<LoadedTask> => {
        const again = parseTask(file);
        if (again.ok === 'missing') return { missing: true };
        if (again.ok) return { task: again.value };
        return { corrupt: await keepCorrupt(file, again.problem, held, opts.now()) };
      },
      opts.lock,
    );
  return opts.listHeld === true ? underTaskLock() : withFileLock(paths.lock, underTaskLock, opts.lock);
}

/** The error for a task that is not there (or was corrupt and is now kept aside). */
export function notFound(id: string, corrupt?: CorruptTask): TaskError {
  if (corrupt) return new TaskError('not_found', `task ${id} was corrupt (${corrupt.error}); kept as ${corrupt.keptAt}: recreate it with swarm tasks add`);
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
 * under their locks (a missing one is absent from the map; a corrupt one is kept aside and absent).
 * `fn` validates and returns what to write and remove: nothing is written when it throws.
 */
export async function withTaskGroup<R>(
  paths: TaskListPaths,
  ids: readonly string[],
  opts: { lock?: LockOptions; now: () => number },
  fn: (tasks: Map<string, Task>, corrupt: Map<string, CorruptTask>) => Promise<GroupChange<R>> | GroupChange<R>,
): Promise<R> {
  await ensureList(paths);
  const order = [...new Set(ids)].sort(byId);
  return withFileLock(paths.lock, (listHeld) => lockEach(order, [listHeld]), opts.lock);

  async function lockEach(rest: readonly string[], held: HeldLock[]): Promise<R> {
    if (rest.length > 0) {
      return withFileLock(paths.task(rest[0]!), (h) => lockEach(rest.slice(1), [...held, h]), opts.lock);
    }
    const tasks = new Map<string, Task>();
    const corrupt = new Map<string, CorruptTask>();
    for (const [i, id] of order.entries()) {
      const file = paths.task(id);
      const r = parseTask(file);
      if (r.ok === true) tasks.set(id, r.value);
      else if (r.ok === false) corrupt.set(id, await keepCorrupt(file, r.problem, held[i + 1]!, opts.now()));
    }
    const change = await fn(tasks, corrupt);
    for (const h of held) h.assertHeld();
    for (const t of change.write ?? []) writeFileAtomicSync(paths.task(t.id), formatJson(t));
    for (const id of change.remove ?? []) rmSync(paths.task(id), { force: true });
    if ((change.remove ?? []).length > 0) await fsyncDir(paths.dir);
    return change.result;
  }
}
