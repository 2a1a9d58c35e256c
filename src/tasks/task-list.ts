// A team's shared task list (docs/protocol.md#task-list), on Claude Code's files (store.ts has the layout and the
// locking rule). Claims follow Claude Code's rules: refused when another member owns the task
// (`already_claimed`), when it is completed (`already_resolved`), or while a blocker is open
// (`blocked`, naming it). Every change says who makes it (`by`: the CLI and the agent lead are
// team-lead), and is checked on the task under its lock against ownership.ts: an owned task is
// changed only by its owner or team-lead, and only team-lead reassigns it. Setting `owner` to somebody other than the one making the change calls
// `notify` with a task_assignment frame; how it is sent (as the signed leader, as a teammate) is
// the caller's business.
import type { TaskAssignment } from '../protocol/control.js';
import { isTaskId, TaskSchema, taskFileSchema, TaskUpdateStatusSchema, type Task, type TaskStatus, type TaskUpdateStatus } from '../protocol/task.js';
import { mutateJsonFile, mutateJsonFileIfFree, type CorruptReport, type JsonFileOptions, type MutationOutcome } from '../storage/json-file.js';
import { STOPPED_WAITING, type LockOptions } from '../storage/lock.js';
import type { TaskListPaths } from '../team/paths.js';
import type { Team } from '../team/team.js';
import { TaskError, isTaskError } from './errors.js';
import { findCycle, type Edge } from './graph.js';
import { checkId, checkIds, checkMetadata, checkOwner, checkText, invalid } from './input.js';
import { assertMayChange, ownedBy } from './ownership.js';
import {
  byId,
  idsOnDisk,
  loadTask,
  nextId,
  notFound,
  peekTask,
  markProblem,
  raiseHighwatermark,
  unreadableEntry,
  withTaskGroup,
  type CorruptTask,
  type SkippedEntry,
  type Unreadable,
} from './store.js';

export { TaskError, isTaskError, type TaskErrorKind } from './errors.js';
export type { CorruptTask, SkippedEntry } from './store.js';

export interface TaskListOptions {
  now?: () => number;
  /** Sends the new owner its task_assignment frame. */
  notify?: (to: string, frame: TaskAssignment) => Promise<void>;
  /** Tells the owner of an in_progress task that it was blocked after the claim (a plain message). */
  tell?: (to: string, text: string) => Promise<void>;
  lock?: LockOptions;
}

export interface NewTask {
  subject: string;
  description: string;
  activeForm?: string;
  owner?: string;
  blockedBy?: string[];
  metadata?: Record<string, unknown>;
}

export interface TaskPatch {
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: TaskUpdateStatus;
  /** A member's name, or null (or "") to clear the owner. */
  owner?: string | null;
  addBlocks?: string[];
  addBlockedBy?: string[];
  /** Merged into the task's metadata; a key set to null is removed. */
  metadata?: Record<string, unknown>;
}

export interface TaskListing {
  tasks: Task[];
  corrupt: CorruptTask[];
  /** Names not read as tasks (odd entries, ids out of range) and an unusable `.highwatermark`: report them by name. */
  skipped: SkippedEntry[];
}

function mergeMetadata(current: Record<string, unknown> | undefined, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

function withOwner(task: Task, owner: string | undefined): Task {
  const next = { ...task };
  if (owner === undefined) delete next.owner;
  else next.owner = owner;
  return next;
}

/** A task Claude Code keeps for itself (`metadata._internal`): its TaskList hides it, and nobody claims it. */
export function isInternalTask(t: Task): boolean {
  return Boolean(t.metadata?._internal);
}

/** Completed and all tasks of a listing, Claude Code's internal ones left out (as its TaskList leaves them out). */
export function progressOf(tasks: readonly Task[]): { done: number; total: number } {
  const counted = tasks.filter((t) => !isInternalTask(t));
  return { done: counted.filter((t) => t.status === 'completed').length, total: counted.length };
}

function describeBlocker(t: Task): string {
  return `task ${t.id} "${t.subject}" (${t.status}${t.owner ? `, ${t.owner}` : ''})`;
}

export class TaskList {
  private readonly now: () => number;

  constructor(
    readonly team: Team,
    private readonly opts: TaskListOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  get paths(): TaskListPaths {
    return this.team.paths.tasks;
  }

  private get fileOpts(): { lock?: LockOptions; now: () => number } {
    return { now: this.now, ...(this.opts.lock ? { lock: this.opts.lock } : {}) };
  }

  /** A new task, id = max(file names, .highwatermark) + 1, `pending`; its blockers' `blocks` gain it. */
  async create(input: NewTask, by: string): Promise<Task> {
    const subject = checkText(input.subject, 'subject', true)!;
    const description = checkText(input.description ?? '', 'description', false) ?? '';
    const activeForm = checkText(input.activeForm, 'activeForm', false);
    const owner = input.owner === undefined || input.owner === '' ? undefined : checkOwner(input.owner);
    const metadata = checkMetadata(input.metadata);
    const blockedBy = checkIds(input.blockedBy, 'blocker id');
    const task = await withTaskGroup(this.paths, blockedBy, this.fileOpts, (blockers, unreadable) => {
      const unknown = blockedBy.filter((b) => !blockers.has(b));
      if (unknown.length > 0) throw unknownBlockers(unknown, unreadable);
      const created = TaskSchema.parse({
        id: nextId(this.paths),
        subject,
        description,
        ...(activeForm !== undefined ? { activeForm } : {}),
        ...(owner !== undefined ? { owner } : {}),
        status: 'pending',
        blocks: [],
        blockedBy,
        ...(metadata !== undefined ? { metadata } : {}),
      });
      const write = [created, ...blockedBy.map((b) => addTo(blockers.get(b)!, 'blocks', created.id))];
      return { write, result: created };
    });
    if (owner !== undefined) await this.notifyOwner(task, owner, by);
    return task;
  }

  async get(id: string): Promise<Task> {
    checkId(id);
    const loaded = await loadTask(this.paths, id, this.fileOpts);
    if ('task' in loaded) return loaded.task;
    throw notFound(id, 'missing' in loaded ? undefined : loaded);
  }

  /** Every task in id order; corrupt files are kept aside and listed apart, odd entries skipped and listed by name. */
  async list(): Promise<TaskListing> {
    return this.listAll(false);
  }

  /** `list`, by a caller that may already hold the list lock (`listHeld`). */
  private async listAll(listHeld: boolean): Promise<TaskListing> {
    const { ids, skipped } = idsOnDisk(this.paths);
    const mark = markProblem(this.paths);
    if (mark) skipped.push(mark);
    const loaded = await Promise.all(ids.map((id) => loadTask(this.paths, id, { ...this.fileOpts, listHeld })));
    const tasks: Task[] = [];
    const corrupt: CorruptTask[] = [];
    for (const l of loaded) {
      if ('task' in l) tasks.push(l.task);
      else if ('corrupt' in l) corrupt.push(l.corrupt);
      else if ('skipped' in l) skipped.push(l.skipped);
    }
    return { tasks, corrupt, skipped };
  }

  /** Change a task as `by` (the ownership rules: assertMayChange); `status: "deleted"` removes it (undefined is returned). */
  async update(id: string, patch: TaskPatch, by: string): Promise<Task | undefined> {
    checkId(id);
    const status = patch.status === undefined ? undefined : TaskUpdateStatusSchema.safeParse(patch.status);
    if (status && !status.success) throw invalid(`invalid status ${JSON.stringify(patch.status)}: expected pending, in_progress, completed or deleted`);
    if (status?.data === 'deleted') {
      await this.delete(id, by);
      return undefined;
    }
    const fields = {
      subject: checkText(patch.subject, 'subject', patch.subject !== undefined),
      description: checkText(patch.description, 'description', false),
      activeForm: checkText(patch.activeForm, 'activeForm', false),
      status: status?.data as TaskStatus | undefined,
      metadata: checkMetadata(patch.metadata),
    };
    const owner = patch.owner === undefined ? undefined : patch.owner === null || patch.owner === '' ? null : checkOwner(patch.owner);
    const addBlocks = checkIds(patch.addBlocks, 'task id in addBlocks');
    const addBlockedBy = checkIds(patch.addBlockedBy, 'task id in addBlockedBy');
    const apply = (t: Task): Task => {
      let next: Task = { ...t };
      if (fields.subject !== undefined) next.subject = fields.subject;
      if (fields.description !== undefined) next.description = fields.description;
      if (fields.activeForm !== undefined) next.activeForm = fields.activeForm;
      if (fields.status !== undefined) next.status = fields.status;
      if (fields.metadata !== undefined) next.metadata = mergeMetadata(t.metadata, fields.metadata);
      if (owner !== undefined) next = withOwner(next, owner ?? undefined);
      return next;
    };
    let before: Task;
    let after: Task;
    const allowed = (t: Task): Task => {
      this.assertMayChange(t, by, owner);
      return t;
    };
    if (addBlocks.length === 0 && addBlockedBy.length === 0) {
      [before, after] = await this.mutate(id, (t) => ({ write: apply(allowed(t)), result: [t, apply(t)] as [Task, Task] }));
    } else {
      [before, after] = await this.changeDependencies(id, addBlocks, addBlockedBy, (t) => apply(allowed(t)), by);
    }
    if (typeof owner === 'string' && before.owner !== owner) await this.notifyOwner(after, owner, by);
    const blockedNow = [...(addBlockedBy.length > 0 ? [after] : []), ...addBlocks.flatMap((b) => peekTask(this.paths, b) ?? [])];
    for (const t of blockedNow) await this.tellBlocked(t, by);
    return after;
  }

  /** A blocker was added to `t`: if someone other than `by` is at work on it, tell them it waits now. */
  private async tellBlocked(t: Task, by: string): Promise<void> {
    const open = this.openBlockers(t);
    if (t.status !== 'in_progress' || !t.owner || this.isOwner(t, by) || open.length === 0 || !this.opts.tell) return;
    await this.opts.tell(
      t.owner,
      `task #${t.id} "${t.subject}" (yours, in progress) is now blocked by ${open.map(describeBlocker).join(', ')}: it stays yours; go on with it once ${open.length === 1 ? 'that is' : 'those are'} completed`,
    );
  }

  /**
   * Set `owner` and `status: "in_progress"` under the task's lock, unless another member owns it,
   * it is completed, or one of its blockers is still open. `by` (default: `owner`) is who claims.
   */
  async claim(id: string, owner: string, by: string = owner): Promise<Task> {
    checkId(id);
    checkOwner(owner);
    const [before, after] = await this.mutate(id, (t) => this.claimStep(id, t, owner));
    if (before.owner !== owner) await this.notifyOwner(after, owner, by);
    return after;
  }

  /** The tasks anyone may claim now: pending, unowned, unblocked (Claude Code's internal ones left out), lowest id first. */
  async claimable(): Promise<Task[]> {
    const { tasks } = await this.list();
    return tasks.filter((t) => t.status === 'pending' && !t.owner && !isInternalTask(t) && this.openBlockers(t).length === 0);
  }

  /**
   * Claim the lowest-id pending, unowned, unblocked task; undefined when there is none. A task whose
   * lock is busy (another claimer is at it right now) is passed over for the next one first, so a
   * crowd of idle teammates spreads over the list instead of queueing for the same task; only when
   * every candidate was busy does it wait for them, in id order.
   */
  async claimNext(owner: string): Promise<Task | undefined> {
    checkOwner(owner);
    const candidates = await this.claimable();
    const busy: string[] = [];
    for (const wait of [false, true]) {
      for (const t of wait ? candidates.filter((c) => busy.includes(c.id)) : candidates) {
        // Look again without the lock first: under contention most candidates of the snapshot are taken by now.
        const fresh = peekTask(this.paths, t.id);
        if (fresh && (fresh.status !== 'pending' || fresh.owner)) continue;
        try {
          const got = wait ? await this.claim(t.id, owner) : await this.claimIfFree(t.id, owner);
          if (got !== STOPPED_WAITING) return got;
          busy.push(t.id);
        } catch (e) {
          if (isTaskError(e) && e.kind !== 'invalid') continue; // taken or changed meanwhile: the next one
          throw e;
        }
      }
    }
    return undefined;
  }

  /** A self-claim (no task_assignment: nobody else assigned it) when the task's lock is free right now; STOPPED_WAITING when somebody holds it. */
  private async claimIfFree(id: string, owner: string): Promise<Task | typeof STOPPED_WAITING> {
    const { file, opts, step } = this.taskCycle(id, (t) => this.claimStep(id, t, owner));
    const got = await mutateJsonFileIfFree(file, opts, step);
    return got === STOPPED_WAITING ? got : got[1];
  }

  /** The claim rules on the task as it is under its lock: the claimed task, or a TaskError saying why not. */
  private claimStep(id: string, t: Task, owner: string): { write: Task; result: [Task, Task] } {
    if (t.owner && !this.isOwner(t, owner)) throw new TaskError('already_claimed', `task ${id} is already claimed by ${t.owner}; pick another task (swarm tasks list)`);
    if (t.status === 'completed') throw new TaskError('already_resolved', `task ${id} is already completed; pick another task (swarm tasks list)`);
    const open = this.openBlockers(t);
    if (open.length > 0) {
      throw new TaskError('blocked', `task ${id} is blocked by ${open.map(describeBlocker).join(', ')}; claim it once ${open.length === 1 ? 'that is' : 'those are'} completed`);
    }
    const claimed: Task = { ...t, owner, status: 'in_progress' };
    return { write: claimed, result: [t, claimed] };
  }

  /**
   * Put the member's unfinished tasks back: `pending`, no owner. Returns them as they are now. Like
   * Claude Code, a task owned by the member's agentId (`alice@team`) counts as the member's too.
   */
  async release(owner: string): Promise<Task[]> {
    const { tasks } = await this.list();
    const released: Task[] = [];
    for (const t of tasks) {
      if (!this.isOwner(t, owner) || t.status === 'completed') continue;
      try {
        const r = await this.mutate(t.id, (cur) => {
          if (!this.isOwner(cur, owner) || cur.status === 'completed') return { result: undefined };
          const back = withOwner({ ...cur, status: 'pending' }, undefined);
          return { write: back, result: back };
        });
        if (r) released.push(r);
      } catch (e) {
        if (!isTaskError(e, 'not_found')) throw e; // deleted meanwhile
      }
    }
    return released;
  }

  /** The tasks `owner` holds and has not completed (pending or in_progress), lowest id first. */
  async unfinishedOf(owner: string): Promise<Task[]> {
    const { tasks } = await this.list();
    return tasks.filter((t) => this.isOwner(t, owner) && t.status !== 'completed' && !isInternalTask(t));
  }

  /** The list's progress (progressOf): one read of every task. */
  async progress(): Promise<{ done: number; total: number }> {
    return progressOf((await this.list()).tasks);
  }

  /** True when `t` is owned by `name` (ownership.ts). */
  private isOwner(t: Task, name: string): boolean {
    return ownedBy(t, name, this.team.name);
  }

  /** The ownership rules (ownership.ts) for `by` changing `t`. */
  private assertMayChange(t: Task, by: string, newOwner?: string | null): void {
    assertMayChange(t, by, this.team.name, newOwner);
  }

  /** Blockers of `t` that exist and are not completed (a deleted or unreadable blocker no longer blocks: Claude Code's rule). */
  private openBlockers(t: Task): Task[] {
    return t.blockedBy.flatMap((b) => {
      if (!isTaskId(b)) return [];
      const blocker = peekTask(this.paths, b);
      return blocker && blocker.status !== 'completed' ? [blocker] : [];
    });
  }

  /** One task's locked read-modify-write (storage/json-file); `fn` may run more than once. */
  private async mutate<R>(id: string, fn: (t: Task) => { write?: Task; result: R }): Promise<R> {
    const { file, opts, step } = this.taskCycle(id, fn);
    return mutateJsonFile(file, opts, step);
  }

  /**
   * One locked cycle on task `id`: its file, how it is read (a corrupt one is kept aside and named
   * in the error) and the step, which refuses a task that is gone under the lock.
   */
  private taskCycle<R>(id: string, fn: (t: Task) => { write?: Task; result: R }): {
    file: string;
    opts: JsonFileOptions<Task | undefined>;
    step: (t: Task | undefined) => MutationOutcome<Task | undefined, R>;
  } {
    const file = this.paths.task(id);
    const odd = unreadableEntry(this.paths, id);
    if (odd) throw notFound(id, 'missing' in odd ? undefined : odd);
    let corrupt: CorruptReport | undefined;
    return {
      file,
      opts: {
        schema: taskFileSchema(id).optional(),
        init: () => undefined,
        onCorrupt: (r) => (corrupt = r),
        ...(this.opts.lock ? { lock: this.opts.lock } : {}),
      },
      step: (current) => {
        if (current === undefined) throw notFound(id, corrupt && { corrupt: { file, keptAt: corrupt.keptAs, error: corrupt.problem } });
        const { write, result } = fn(current);
        return { result, ...(write ? { write } : {}) };
      },
    };
  }

  /**
   * A patch that adds dependencies: list lock, then every task involved, validated before anything is
   * written. `apply` checks `by` may change the task; a task it blocks gains a blocker, a change to
   * that task too (its owner's or team-lead's), while a blocker gaining `blocks` is only the mirror.
   */
  private async changeDependencies(id: string, addBlocks: string[], addBlockedBy: string[], apply: (t: Task) => Task, by: string): Promise<[Task, Task]> {
    const others = [...addBlocks, ...addBlockedBy];
    return withTaskGroup(this.paths, [id, ...others], this.fileOpts, async (locked, unreadable) => {
      const task = locked.get(id);
      if (!task) throw notFound(id, unreadable.get(id));
      const unknown = others.filter((o) => !locked.has(o));
      if (unknown.length > 0) throw unknownBlockers(unknown, unreadable);
      const changed = new Map<string, Task>([[id, apply(task)]]);
      for (const b of addBlocks) this.assertMayChange(locked.get(b)!, by);
      const edges: Edge[] = [...addBlocks.map((to) => ({ from: id, to })), ...addBlockedBy.map((from) => ({ from, to: id }))];
      const { tasks: all } = await this.listAll(true);
      const cycle = findCycle(
        all.map((t) => locked.get(t.id) ?? t),
        edges,
      );
      if (cycle) {
        const { from, to } = cycle.edge;
        throw new TaskError(
          'cycle',
          from === to
            ? `task ${id} cannot block itself`
            : `task ${from} cannot block task ${to}: that would make a cycle (${cycle.cycle.join(' → ')}); nothing was changed`,
        );
      }
      const edit = (tid: string, key: 'blocks' | 'blockedBy', other: string): void => {
        changed.set(tid, addTo(changed.get(tid) ?? locked.get(tid)!, key, other));
      };
      for (const e of edges) {
        edit(e.from, 'blocks', e.to);
        edit(e.to, 'blockedBy', e.from);
      }
      const after = changed.get(id)!;
      return { write: [...changed.values()].sort((a, b) => byId(a.id, b.id)), result: [task, after] as [Task, Task] };
    });
  }

  /**
   * Remove the task's file as `by` (assertMayChange), raise .highwatermark first (its id is never
   * issued again), and drop it from every other task's blocks/blockedBy (bookkeeping, whoever owns them).
   */
  private async delete(id: string, by: string): Promise<void> {
    const { tasks } = await this.list();
    const referring = tasks.filter((t) => t.id !== id && (t.blocks.includes(id) || t.blockedBy.includes(id))).map((t) => t.id);
    await withTaskGroup(this.paths, [id, ...referring], this.fileOpts, async (locked, unreadable) => {
      const task = locked.get(id);
      if (!task) throw notFound(id, unreadable.get(id));
      this.assertMayChange(task, by);
      await raiseHighwatermark(this.paths, Number(id), this.now());
      const write = referring.flatMap((r) => {
        const t = locked.get(r);
        return t ? [{ ...t, blocks: t.blocks.filter((b) => b !== id), blockedBy: t.blockedBy.filter((b) => b !== id) }] : [];
      });
      return { remove: [id], write, result: undefined };
    });
  }

  private async notifyOwner(task: Task, owner: string, by: string): Promise<void> {
    if (owner === by || !this.opts.notify) return;
    await this.opts.notify(owner, {
      type: 'task_assignment',
      taskId: task.id,
      subject: task.subject,
      description: task.description,
      assignedBy: by,
      timestamp: new Date(this.now()).toISOString(),
    });
  }
}

function addTo(t: Task, key: 'blocks' | 'blockedBy', id: string): Task {
  return t[key].includes(id) ? t : { ...t, [key]: [...t[key], id] };
}

function unknownBlockers(ids: string[], unreadable: Map<string, Unreadable>): TaskError {
  const why = (u: Unreadable | undefined): string => (u === undefined ? '' : 'corrupt' in u ? ` (corrupt, kept as ${u.corrupt.keptAt})` : ` (${u.skipped.problem})`);
  const bad = ids.map((i) => `${i}${why(unreadable.get(i))}`);
  return new TaskError('unknown_blocker', `no task ${bad.join(', ')} to depend on (see swarm tasks list); nothing was changed`);
}
