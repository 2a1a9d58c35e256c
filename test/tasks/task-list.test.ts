// The task list module on real files in a temp root: ids, order, claims and their refusals,
// dependencies kept on both sides and cycles refused with nothing written, deletes that never free
// an id, corrupt files kept aside, modes, Claude Code's own files, and the task_assignment frame.
import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskAssignment } from '../../src/protocol/control.js';
import lockfile from 'proper-lockfile';
import { isSwarmError } from '../../src/protocol/errors.js';
import { queueDirFor } from '../../src/storage/lock.js';
import { TaskList, TaskError } from '../../src/tasks/index.js';
import { Team } from '../../src/team/team.js';
import { REPO } from '../support/cli.js';
import { refusal, snapshot as taskFiles } from '../support/task-files.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root: string;
let team: Team;
let sent: { to: string; frame: TaskAssignment }[];
let list: TaskList;
const NOW = Date.parse('2026-12-04T10:00:00.000Z');

useTempRoot((dir) => (root = dir));
beforeEach(() => {
  team = new Team(root, 'crew');
  sent = [];
  list = new TaskList(team, { now: () => NOW, notify: async (to, frame) => void sent.push({ to, frame }) });
});

const dir = (): string => path.join(root, 'tasks/crew');
const onDisk = async (id: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(path.join(dir(), `${id}.json`), 'utf8')) as Record<string, unknown>;
const add = (subject: string, extra: { blockedBy?: string[]; owner?: string } = {}) => list.create({ subject, description: `${subject} in full`, ...extra }, 'team-lead');

/** The task files and the high-water mark, by name (not locks or kept-aside copies). */
const snapshot = (): Promise<Record<string, string>> => taskFiles(dir(), (n) => n.endsWith('.json') || n === '.highwatermark');

describe('create, get, list', () => {
  it('numbers tasks 1, 2, 3 in Claude Code layout, pending, files 0600 in a 0700 directory', async () => {
    const a = await add('first');
    const b = await add('second');
    expect([a.id, b.id]).toEqual(['1', '2']);
    expect(await onDisk('1')).toEqual({ id: '1', subject: 'first', description: 'first in full', status: 'pending', blocks: [], blockedBy: [] });
    expect((await stat(path.join(dir(), '1.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(dir())).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir(), '.lock'))).isFile()).toBe(true);
    expect(await list.get('2')).toMatchObject({ id: '2', subject: 'second' });
  });

  it('lists in numeric order (10 after 9) and counts progress', async () => {
    for (let i = 1; i <= 10; i++) await add(`t${i}`);
    await list.update('3', { status: 'completed' }, 'team-lead');
    const { tasks, corrupt } = await list.list();
    expect(tasks.map((t) => t.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(corrupt).toEqual([]);
    expect(await list.progress()).toEqual({ done: 1, total: 10 });
  });

  it('refuses an unknown task id, a malformed id and an empty subject with one-line errors', async () => {
    expect((await refusal(list.get('4'))).kind).toBe('not_found');
    expect((await refusal(list.get('../x'))).kind).toBe('invalid');
    expect((await refusal(list.create({ subject: '  ', description: '' }, 'team-lead'))).kind).toBe('invalid');
    expect((await refusal(list.update('9', { subject: 'x' }, 'team-lead'))).message).toMatch(/^no task 9 /);
  });

  it('never reuses an id after deletes, and raises .highwatermark', async () => {
    await add('a');
    await add('b');
    await add('c');
    expect(await list.update('3', { status: 'deleted' }, 'team-lead')).toBeUndefined();
    await list.update('2', { status: 'deleted' }, 'team-lead');
    expect(await readFile(path.join(dir(), '.highwatermark'), 'utf8')).toBe('3');
    expect((await add('d')).id).toBe('4');
    expect((await list.list()).tasks.map((t) => t.id)).toEqual(['1', '4']);
    expect((await refusal(list.update('3', { status: 'deleted' }, 'team-lead'))).kind).toBe('not_found');
  });
});

describe('dependencies', () => {
  it('keeps blocks and blockedBy consistent on both tasks, on create, update and delete', async () => {
    await add('design');
    await add('build', { blockedBy: ['1'] });
    expect((await onDisk('1')).blocks).toEqual(['2']);
    expect((await onDisk('2')).blockedBy).toEqual(['1']);
    await add('test');
    await list.update('2', { addBlocks: ['3'] }, 'team-lead');
    await list.update('3', { addBlockedBy: ['1'] }, 'team-lead');
    expect((await onDisk('2')).blocks).toEqual(['3']);
    expect((await onDisk('3')).blockedBy).toEqual(['2', '1']);
    expect((await onDisk('1')).blocks).toEqual(['2', '3']);
    await list.update('2', { status: 'deleted' }, 'team-lead');
    expect((await onDisk('1')).blocks).toEqual(['3']);
    expect((await onDisk('3')).blockedBy).toEqual(['1']);
  });

  it('refuses a cycle, a self-block and an unknown blocker, writing nothing', async () => {
    await add('a');
    await add('b', { blockedBy: ['1'] });
    await add('c', { blockedBy: ['2'] });
    const before = await snapshot();
    const cycle = await refusal(list.update('1', { addBlockedBy: ['3'] }, 'team-lead'));
    expect(cycle.kind).toBe('cycle');
    expect(cycle.message).toBe('task 3 cannot block task 1: that would make a cycle (3 → 1 → 2 → 3); nothing was changed');
    expect((await refusal(list.update('2', { addBlocks: ['2'] }, 'team-lead'))).kind).toBe('cycle');
    expect((await refusal(list.update('1', { subject: 'renamed', addBlocks: ['3', '7'] }, 'team-lead'))).kind).toBe('unknown_blocker');
    expect((await refusal(add('d', { blockedBy: ['9'] }))).kind).toBe('unknown_blocker');
    expect(await snapshot()).toEqual(before);
  });
});

describe('claim', () => {
  it('sets owner and in_progress; refuses another owner, a completed task, and an open blocker by name', async () => {
    await add('a');
    await add('b', { blockedBy: ['1'] });
    expect(await list.claim('1', 'alice')).toMatchObject({ owner: 'alice', status: 'in_progress' });
    expect(await list.claim('1', 'alice')).toMatchObject({ owner: 'alice' }); // her own again: fine
    const taken = await refusal(list.claim('1', 'bob'));
    expect(taken.kind).toBe('already_claimed');
    expect(taken.message).toContain('already claimed by alice');
    const blocked = await refusal(list.claim('2', 'bob'));
    expect(blocked.kind).toBe('blocked');
    expect(blocked.message).toContain('blocked by task 1 "a" (in_progress, alice)');
    await list.update('1', { status: 'completed' }, 'alice');
    expect((await refusal(list.claim('1', 'alice'))).kind).toBe('already_resolved');
    expect(await list.claim('2', 'bob')).toMatchObject({ owner: 'bob', status: 'in_progress' });
  });

  it('claimNext takes the lowest pending, unowned, unblocked task', async () => {
    await add('a', { owner: 'alice' });
    await add('b');
    await add('c', { blockedBy: ['2'] });
    await add('d');
    expect((await list.claimNext('bob'))?.id).toBe('2');
    expect((await list.claimNext('carol'))?.id).toBe('4');
    expect(await list.claimNext('dave')).toBeUndefined();
  });

  it('claimNext passes over a task somebody holds the lock of, and waits for it only when nothing else is free', async () => {
    await add('a');
    await add('b');
    // Another claimer (Claude Code's way: proper-lockfile on the task file) is at task 1 right now.
    const releaseOne = await lockfile.lock(path.join(dir(), '1.json'), { retries: 0 });
    expect((await list.claimNext('bob'))?.id).toBe('2'); // at once: no wait for task 1's lock
    let carol: string | undefined = 'not yet';
    const waiting = list.claimNext('carol').then((t) => (carol = t?.id));
    // Only task 1 is left: carol takes a place in its lock's waiting line.
    await waitFor(async () => (await readdir(path.join(dir(), '1.json.lock.queue')).catch(() => [])).length > 0, 10_000);
    expect(carol).toBe('not yet');
    await releaseOne();
    await waiting;
    expect(carol).toBe('1');
  });

  it("Claude Code's internal tasks (metadata._internal) are neither claimed next nor counted in the progress", async () => {
    await list.create({ subject: 'bookkeeping', description: '', metadata: { _internal: true } }, 'team-lead');
    await add('real work');
    expect((await list.claimNext('bob'))?.id).toBe('2');
    expect(await list.claimNext('carol')).toBeUndefined();
    expect(await list.progress()).toEqual({ done: 0, total: 1 });
    expect((await list.list()).tasks.map((t) => t.id)).toEqual(['1', '2']);
  });

  it('one winner among concurrent claims', async () => {
    await add('only');
    const results = await Promise.allSettled(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => list.claim('1', n)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as TaskError).kind).toBe('already_claimed');
  });

  it("release puts a member's unfinished tasks back to pending, unowned (owned by name or by agentId)", async () => {
    await add('a');
    await add('b');
    await add('c');
    await list.claim('1', 'alice');
    await list.claim('2', 'alice');
    await list.update('2', { status: 'completed' }, 'alice');
    await list.claim('3', 'bob');
    await add('d');
    await writeFile(path.join(dir(), '4.json'), JSON.stringify({ ...(await onDisk('4')), owner: 'alice@crew', status: 'in_progress' }, null, 2)); // Claude Code may write the agentId
    const released = await list.release('alice');
    expect(released.map((t) => t.id)).toEqual(['1', '4']);
    expect(await onDisk('1')).not.toHaveProperty('owner');
    expect(await onDisk('1')).toMatchObject({ status: 'pending' });
    expect(await onDisk('2')).toMatchObject({ owner: 'alice', status: 'completed' });
  });
});

describe('task_assignment', () => {
  it('is sent to a new owner set by somebody else (create, update, claim on behalf), not to a self-claim', async () => {
    await add('a', { owner: 'alice' });
    await add('b');
    await list.claim('2', 'bob'); // bob's own claim: no frame
    await list.update('2', { owner: 'carol' }, 'team-lead');
    await list.update('2', { owner: 'carol' }, 'team-lead'); // unchanged: no second frame
    expect(sent).toEqual([
      {
        to: 'alice',
        frame: { type: 'task_assignment', taskId: '1', subject: 'a', description: 'a in full', assignedBy: 'team-lead', timestamp: '2026-12-04T10:00:00.000Z' },
      },
      { to: 'carol', frame: expect.objectContaining({ type: 'task_assignment', taskId: '2', assignedBy: 'team-lead' }) as unknown },
    ]);
    await list.update('2', { owner: null }, 'team-lead');
    expect(await onDisk('2')).not.toHaveProperty('owner');
  });
});

describe('files written by others', () => {
  it("reads Claude Code's 0644 task as it is, leaves it 0644 until rewritten, and keeps unknown fields", async () => {
    await mkdir(dir(), { recursive: true });
    const file = path.join(dir(), '1.json');
    await copyFile(path.join(REPO, 'test/fixtures/claude-code/task-2.1.112.json'), file);
    await chmod(file, 0o644);
    const original = await readFile(file, 'utf8');
    expect(await list.get('1')).toMatchObject({ id: '1', subject: 'Read the failing test', activeForm: 'Reading the failing test', status: 'pending' });
    expect((await list.list()).tasks).toHaveLength(1);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(await readFile(file, 'utf8')).toBe(original);
    await writeFile(file, JSON.stringify({ ...JSON.parse(original), futureField: { kept: true } }, null, 2));
    expect((await add('next')).id).toBe('2');
    await list.claim('1', 'alice');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await onDisk('1')).toMatchObject({ futureField: { kept: true }, owner: 'alice', activeForm: 'Reading the failing test' });
  });

  it('keeps a corrupt task aside, reports it, lists the rest, and never issues its id again', async () => {
    await add('a');
    await add('b');
    await add('c');
    await writeFile(path.join(dir(), '3.json'), '{"id": "3", "subj');
    const { tasks, corrupt } = await list.list();
    expect(tasks.map((t) => t.id)).toEqual(['1', '2']);
    expect(corrupt).toHaveLength(1);
    expect(corrupt[0]!.file).toBe(path.join(dir(), '3.json'));
    expect(corrupt[0]!.keptAt).toMatch(/3\.json\.corrupt-\d+$/);
    expect(await readFile(corrupt[0]!.keptAt, 'utf8')).toBe('{"id": "3", "subj');
    expect((await add('d')).id).toBe('4');
    await writeFile(path.join(dir(), '4.json'), 'not json');
    const e = await refusal(list.claim('4', 'alice'));
    expect(e.kind).toBe('not_found');
    expect(e.message).toMatch(/^task 4 was corrupt \(invalid JSON/);
  });
});

describe("Claude Code's task being created", () => {
  it('a task file Claude Code has truncated but not written yet (it holds only the list lock) is waited for, never kept aside as corrupt', async () => {
    await add('a');
    // Claude Code's TaskCreate: the list lock (proper-lockfile on tasks/<team>/.lock), then the new
    // file opened with truncation and written in place.
    const releaseList = await lockfile.lock(path.join(dir(), '.lock'), { retries: 0 });
    const file = path.join(dir(), '2.json');
    await writeFile(file, '');
    const listing = list.list();
    const task = { id: '2', subject: 'made by Claude Code', description: 'x', status: 'pending', blocks: [], blockedBy: [] };
    // The listing has read the empty file and waits in line for the list lock.
    await waitFor(async () => (await readdir(queueDirFor(path.join(dir(), '.lock'))).catch(() => [])).length > 0, 5000, 'the listing waiting for the list lock');
    await writeFile(file, JSON.stringify(task, null, 2));
    await releaseList();
    const { tasks, corrupt } = await listing;
    expect(corrupt).toEqual([]);
    expect(tasks.map((t) => t.subject)).toEqual(['a', 'made by Claude Code']);
    expect((await readdir(dir())).filter((n) => n.includes('corrupt'))).toEqual([]);
  });
});

describe("Claude Code's locks", () => {
  it('are the same lock directories: a task or list lock Claude Code holds (proper-lockfile, its way) makes swarm wait', async () => {
    await add('a');
    const patient = new TaskList(team, { lock: { budgetMs: 300 } });
    // Claude Code: proper-lockfile on the task file (lock dir <id>.json.lock), and on tasks/<team>/.lock for the list.
    const releaseTask = await lockfile.lock(path.join(dir(), '1.json'), { retries: 0 });
    const timedOut = await patient.claim('1', 'alice').catch((e: unknown) => e);
    expect(isSwarmError(timedOut, 'lock_timeout'), String(timedOut)).toBe(true);
    await releaseTask();
    const releaseList = await lockfile.lock(path.join(dir(), '.lock'), { retries: 0 });
    expect(isSwarmError(await patient.create({ subject: 'b', description: '' }, 'team-lead').catch((e: unknown) => e), 'lock_timeout')).toBe(true);
    await releaseList();
    expect(await patient.claim('1', 'alice')).toMatchObject({ owner: 'alice' });
    expect((await patient.create({ subject: 'b', description: '' }, 'team-lead')).id).toBe('2');
  });
});
