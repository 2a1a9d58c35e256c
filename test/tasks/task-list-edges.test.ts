// The task list's edges (task-list.test.ts has the main paths): the exact one-line refusals for bad
// ids, owners, texts, metadata and status; which fields a task carries only when given; metadata
// merge; who gets a task_assignment and when not; claimNext's candidates and its second pass;
// release and delete when a task changes, vanishes or is locked meanwhile; corrupt and foreign files
// (odd entries and ids out of range: odd-entries.test.ts; who may change what: ownership.test.ts).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskAssignment } from '../../src/protocol/control.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import type { Task } from '../../src/protocol/task.js';
import { queueDirFor } from '../../src/storage/lock.js';
import { TaskList, type TaskErrorKind } from '../../src/tasks/index.js';
import { Team } from '../../src/team/team.js';
import { refusal, snapshot as taskFiles } from '../support/task-files.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root: string;
let team: Team;
let sent: { to: string; frame: TaskAssignment }[];
let list: TaskList;
const NOW = Date.parse('2026-12-04T10:00:00.000Z');

useTempRoot((dir) => (root = dir), 'swarm-task-edges-');
beforeEach(() => {
  team = new Team(root, 'crew');
  sent = [];
  list = new TaskList(team, { now: () => NOW, notify: async (to, frame) => void sent.push({ to, frame }) });
});

/** A TaskList that gives up on a lock after `budgetMs` without progress: where the code must not wait, a wrong wait fails fast. */
const patient = (budgetMs: number): TaskList => new TaskList(team, { now: () => NOW, lock: { budgetMs } });
/** A value of the wrong type, as a model's tool call or a hand-written file may give it. */
const bad = <T,>(v: unknown): T => v as T;

const dir = (): string => path.join(root, 'tasks/crew');
const file = (id: string): string => path.join(dir(), `${id}.json`);
const onDisk = async (id: string): Promise<Record<string, unknown>> => JSON.parse(await readFile(file(id), 'utf8')) as Record<string, unknown>;
const put = (t: Partial<Task> & { id: string }): Promise<void> =>
  writeFile(file(t.id), JSON.stringify({ subject: `task ${t.id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...t }, null, 2));
const add = (subject: string, extra: { blockedBy?: string[]; owner?: string } = {}): Promise<Task> => list.create({ subject, description: `${subject} in full`, ...extra }, 'team-lead');
/** Hold a task's lock the way Claude Code does (proper-lockfile on the task file). */
const hold = (id: string): Promise<() => Promise<void>> => lockfile.lock(file(id), { retries: 0 });
/** Until somebody waits in line for the task's lock. */
const queued = (id: string): Promise<unknown> => waitFor(async () => (await readdir(queueDirFor(file(id))).catch(() => [])).length > 0, 10_000, `a waiter on task ${id}'s lock`);

const snapshot = (): Promise<Record<string, string>> => taskFiles(dir());

describe('refusals: one line that says what to do, nothing written', () => {
  const ID = 'expected a number like 3 (see swarm tasks list)';
  const OWNER = 'expected a member name (see swarm team show)';
  const cases: [string, () => Promise<unknown>, TaskErrorKind, string][] = [
    ['a task id that is not a string', () => list.get(bad(1)), 'invalid', `invalid task id 1: ${ID}`],
    ['a malformed task id', () => list.get('../x'), 'invalid', `invalid task id "../x": ${ID}`],
    ['a malformed blocker id', () => list.create({ subject: 's', description: '', blockedBy: ['x'] }, 'team-lead'), 'invalid', `invalid blocker id "x": ${ID}`],
    ['a malformed id in addBlocks', () => list.update('1', { addBlocks: ['x'] }, 'team-lead'), 'invalid', `invalid task id in addBlocks "x": ${ID}`],
    ['a malformed id in addBlockedBy', () => list.update('1', { addBlockedBy: ['07'] }, 'team-lead'), 'invalid', `invalid task id in addBlockedBy "07": ${ID}`],
    ['an owner that is no member name', () => list.claim('1', 'bad name!'), 'invalid', `invalid owner "bad name!": ${OWNER}`],
    ['an owner that is not a string', () => list.claim('1', bad(42)), 'invalid', `invalid owner 42: ${OWNER}`],
    ['an owner null on create', () => list.create({ subject: 's', description: '', owner: bad(null) }, 'team-lead'), 'invalid', `invalid owner null: ${OWNER}`],
    ['claimNext for no member name', () => list.claimNext('a b'), 'invalid', `invalid owner "a b": ${OWNER}`],
    ['a subject that is not a string', () => list.create({ subject: bad(42), description: '' }, 'team-lead'), 'invalid', 'subject: expected a string, got number'],
    ['no subject', () => list.create(bad({ description: '' }), 'team-lead'), 'invalid', 'subject: expected a string, got nothing'],
    ['a blank subject', () => list.create({ subject: '  ', description: '' }, 'team-lead'), 'invalid', 'subject is empty: give the task a short subject'],
    ['a description that is not a string', () => list.create({ subject: 's', description: bad(42) }, 'team-lead'), 'invalid', 'description: expected a string, got number'],
    ['an activeForm that is not a string', () => list.create({ subject: 's', description: '', activeForm: bad(false) }, 'team-lead'), 'invalid', 'activeForm: expected a string, got boolean'],
    ['metadata that is a string', () => list.create({ subject: 's', description: '', metadata: bad('x') }, 'team-lead'), 'invalid', 'metadata: expected an object'],
    ['metadata that is null', () => list.create({ subject: 's', description: '', metadata: bad(null) }, 'team-lead'), 'invalid', 'metadata: expected an object'],
    ['metadata that is an array', () => list.create({ subject: 's', description: '', metadata: bad([]) }, 'team-lead'), 'invalid', 'metadata: expected an object'],
    ['metadata null on update', () => list.update('1', { metadata: bad(null) }, 'team-lead'), 'invalid', 'metadata: expected an object'],
    ['an unknown status', () => list.update('1', { status: bad('done') }, 'team-lead'), 'invalid', 'invalid status "done": expected pending, in_progress, completed or deleted'],
    ['a subject over its cap', () => list.create({ subject: 'x'.repeat(501), description: '' }, 'team-lead'), 'invalid', 'subject is 501 characters; the most is 500: keep it a short title and put the rest in the description'],
    ['a subject over its cap on update', () => list.update('1', { subject: 'x'.repeat(2_000_000) }, 'team-lead'), 'invalid', 'subject is 2000000 characters; the most is 500: keep it a short title and put the rest in the description'],
    ['a description over its cap', () => list.create({ subject: 's', description: 'x'.repeat(8_000_000) }, 'team-lead'), 'invalid', 'description is 8000000 characters; the most is 65536: put the details in a file and name the file in the description'],
    ['a description over its cap on update', () => list.update('1', { description: 'x'.repeat(65_537) }, 'team-lead'), 'invalid', 'description is 65537 characters; the most is 65536: put the details in a file and name the file in the description'],
    ['an activeForm over its cap', () => list.create({ subject: 's', description: '', activeForm: 'x'.repeat(501) }, 'team-lead'), 'invalid', 'activeForm is 501 characters; the most is 500: a few words such as "Running tests"'],
    ['metadata over its cap', () => list.update('1', { metadata: { blob: 'x'.repeat(65_536) } }, 'team-lead'), 'invalid', 'metadata is 65547 characters as JSON; the most is 65536: keep large data in a file and put its path in metadata'],
    ['metadata that is no JSON', () => list.create({ subject: 's', description: '', metadata: { n: bad(10n) } }, 'team-lead'), 'invalid', 'metadata: cannot be written as JSON (Do not know how to serialize a BigInt)'],
    ['an empty subject on update', () => list.update('1', { subject: '' }, 'team-lead'), 'invalid', 'subject is empty: give the task a short subject'],
    ['a subject that is not a string on update', () => list.update('1', { subject: bad(5) }, 'team-lead'), 'invalid', 'subject: expected a string, got number'],
    ['a description that is not a string on update', () => list.update('1', { description: bad(5) }, 'team-lead'), 'invalid', 'description: expected a string, got number'],
    ['an activeForm that is not a string on update', () => list.update('1', { activeForm: bad(5) }, 'team-lead'), 'invalid', 'activeForm: expected a string, got number'],
    ['a missing task given new dependencies', () => list.update('9', { addBlocks: ['1'] }, 'team-lead'), 'not_found', 'no task 9 (see swarm tasks list)'],
    ['claiming a completed task', () => list.claim('2', 'alice'), 'already_resolved', 'task 2 is already completed; pick another task (swarm tasks list)'],
    ['several unknown blockers', () => list.create({ subject: 's', description: '', blockedBy: ['7', '8'] }, 'team-lead'), 'unknown_blocker', 'no task 7, 8 to depend on (see swarm tasks list); nothing was changed'],
  ];
  it.each(cases)('%s', async (_, run, kind, message) => {
    await add('a');
    await add('b');
    await list.update('2', { status: 'completed' }, 'team-lead');
    const before = await snapshot();
    const e = await refusal(run());
    expect([e.kind, e.message]).toEqual([kind, message]);
    expect(await snapshot()).toEqual(before);
    expect(sent).toEqual([]);
  });

  it('a blocked claim names its one open blocker (unowned) or all of them', async () => {
    await add('a');
    await add('b');
    await add('c', { blockedBy: ['1'] });
    await add('d', { blockedBy: ['1', '2'] });
    await list.claim('2', 'alice');
    expect((await refusal(list.claim('3', 'bob'))).message).toBe('task 3 is blocked by task 1 "a" (pending); claim it once that is completed');
    expect((await refusal(list.claim('4', 'bob'))).message).toBe('task 4 is blocked by task 1 "a" (pending), task 2 "b" (in_progress, alice); claim it once those are completed');
  });

  it('names a corrupt task, as get and as a blocker, with where it was kept', async () => {
    await add('a');
    await add('b');
    await writeFile(file('2'), '{"id": "2", "subj');
    const e = await refusal(list.get('2'));
    expect(e.kind).toBe('not_found');
    expect(e.message).toMatch(/^task 2 was corrupt \(invalid JSON[^\n]*\); kept as \S*2\.json\.corrupt-\d+: recreate it with swarm tasks add$/);
    await writeFile(file('2'), 'not json');
    const b = await refusal(list.create({ subject: 's', description: '', blockedBy: ['2'] }, 'team-lead'));
    const kept = (await readdir(dir())).filter((n) => n.startsWith('2.json.corrupt-')).sort();
    expect(kept).toHaveLength(2);
    expect([b.kind, b.message]).toEqual(['unknown_blocker', `no task 2 (corrupt, kept as ${path.join(dir(), kept[1]!)}) to depend on (see swarm tasks list); nothing was changed`]);
  });

  it('a missing task on a team that has no task list yet: not_found, and no directory made', async () => {
    const e = await refusal(list.claim('1', 'alice'));
    expect([e.kind, e.message]).toEqual(['not_found', 'no task 1 (see swarm tasks list)']);
    expect((await refusal(list.update('1', { subject: 'x' }, 'team-lead'))).message).toBe('no task 1 (see swarm tasks list)');
    await expect(readdir(dir())).rejects.toThrow(/ENOENT/);
  });
});

describe('fields', () => {
  it('a task carries activeForm, owner and metadata only when given; a missing description is empty', async () => {
    const plain = await list.create(bad({ subject: 'plain' }), 'team-lead');
    expect(Object.keys(plain).sort()).toEqual(['blockedBy', 'blocks', 'description', 'id', 'status', 'subject']);
    expect(await onDisk('1')).toEqual({ id: '1', subject: 'plain', description: '', status: 'pending', blocks: [], blockedBy: [] });
    const full = await list.create({ subject: 'full', description: 'd', activeForm: 'Doing it', owner: 'alice', metadata: { k: 1 } }, 'team-lead');
    expect(full).toEqual({ id: '2', subject: 'full', description: 'd', activeForm: 'Doing it', owner: 'alice', status: 'pending', blocks: [], blockedBy: [], metadata: { k: 1 } });
    expect(await onDisk('2')).toEqual(full);
  });

  it('texts and metadata exactly at their caps are taken', async () => {
    const t = await list.create({ subject: 's'.repeat(500), description: 'd'.repeat(65_536), activeForm: 'a'.repeat(500), metadata: { b: 'm'.repeat(65_536 - 8) } }, 'team-lead');
    expect(await onDisk(t.id)).toMatchObject({ subject: 's'.repeat(500), description: 'd'.repeat(65_536), activeForm: 'a'.repeat(500) });
  });

  it('an empty owner on create means none, and nobody is notified', async () => {
    const t = await list.create({ subject: 's', description: '', owner: '' }, 'team-lead');
    expect(Object.keys(t)).not.toContain('owner');
    expect(sent).toEqual([]);
  });

  it("'team-lead' may own a task", async () => {
    await add('a');
    expect(await list.claim('1', 'team-lead')).toMatchObject({ owner: 'team-lead', status: 'in_progress' });
  });

  it('update sets what it is given and keeps the rest (activeForm too)', async () => {
    await list.create({ subject: 'a', description: 'old', activeForm: 'Doing a' }, 'team-lead');
    await list.update('1', { subject: 'renamed', description: 'new' }, 'team-lead');
    await list.update('1', { status: 'in_progress' }, 'team-lead');
    expect(await onDisk('1')).toEqual({ id: '1', subject: 'renamed', description: 'new', activeForm: 'Doing a', status: 'in_progress', blocks: [], blockedBy: [] });
  });

  it('metadata is merged key by key: new keys added, others kept, a key set to null removed', async () => {
    await list.create({ subject: 'a', description: '', metadata: { keep: 1, drop: 2, change: 3 } }, 'team-lead');
    const t = await list.update('1', { metadata: { drop: null, change: 'x', fresh: [1] } }, 'team-lead');
    expect(t?.metadata).toEqual({ keep: 1, change: 'x', fresh: [1] });
    expect((await onDisk('1')).metadata).toEqual({ keep: 1, change: 'x', fresh: [1] });
    await add('b');
    await list.update('2', { metadata: { first: true, gone: null } }, 'team-lead');
    expect((await onDisk('2')).metadata).toEqual({ first: true });
  });

  it('an owner of "" clears it like null, and the task returned has no owner key', async () => {
    await add('a', { owner: 'alice' });
    const t = await list.update('1', { owner: '' }, 'team-lead');
    expect(Object.keys(t!)).not.toContain('owner');
    expect(await onDisk('1')).not.toHaveProperty('owner');
    await list.claim('1', 'bob');
    const [released] = await list.release('bob');
    expect(Object.keys(released!)).not.toContain('owner');
  });

  it('a patch with new dependencies applies its other fields too', async () => {
    await add('a');
    await add('b');
    await list.update('1', { subject: 'renamed', owner: 'alice', addBlocks: ['2'] }, 'team-lead');
    expect(await onDisk('1')).toMatchObject({ subject: 'renamed', owner: 'alice', blocks: ['2'] });
    expect(sent.map((s) => s.to)).toEqual(['alice']);
  });

  it('a dependency change works while another task file is corrupt (it is kept aside, no wait on the held list lock)', async () => {
    await add('a');
    await add('b');
    await add('c');
    await writeFile(file('3'), 'not json');
    await patient(1000).update('1', { addBlocks: ['2'] }, 'team-lead');
    expect((await onDisk('2')).blockedBy).toEqual(['1']);
    expect((await readdir(dir())).filter((n) => n.startsWith('3.json.corrupt-'))).toHaveLength(1);
  });

  it('an update without dependencies takes only the task lock: it goes through while the list lock is held', async () => {
    await add('a');
    const releaseList = await lockfile.lock(path.join(dir(), '.lock'), { retries: 0 });
    try {
      expect(await patient(300).update('1', { subject: 'renamed' }, 'team-lead')).toMatchObject({ subject: 'renamed' });
    } finally {
      await releaseList();
    }
  });
});

describe('task_assignment', () => {
  it('an owner change sends one frame at once; the same owner again, or a change of other fields, none', async () => {
    await add('a');
    await list.update('1', { owner: 'carol' }, 'team-lead');
    expect(sent.map((s) => [s.to, s.frame.taskId, s.frame.assignedBy])).toEqual([['carol', '1', 'team-lead']]);
    await list.update('1', { owner: 'carol' }, 'team-lead');
    await list.update('1', { subject: 'renamed' }, 'team-lead');
    await list.update('1', { owner: 'carol', status: 'in_progress' }, 'carol');
    expect(sent).toHaveLength(1);
  });

  it('a claim on behalf sends one frame; claiming it for the same owner again sends none', async () => {
    await add('a');
    await list.claim('1', 'alice', 'team-lead');
    expect(sent).toEqual([{ to: 'alice', frame: { type: 'task_assignment', taskId: '1', subject: 'a', description: 'a in full', assignedBy: 'team-lead', timestamp: '2026-12-04T10:00:00.000Z' } }]);
    await list.claim('1', 'alice', 'team-lead');
    expect(sent).toHaveLength(1);
  });
});

describe('a blocker added to a task in progress', () => {
  it("tells its owner (by --add-blocked-by or another task's --add-blocks), unless the owner did it or the task is not in progress", async () => {
    const told: [string, string][] = [];
    const telling = new TaskList(team, { now: () => NOW, tell: async (to, text) => void told.push([to, text]) });
    await add('build');
    await add('design');
    await add('ship');
    await telling.claim('1', 'bob');
    await telling.update('1', { addBlockedBy: ['2'] }, 'team-lead');
    expect(told).toEqual([['bob', 'task #1 "build" (yours, in progress) is now blocked by task 2 "design" (pending): it stays yours; go on with it once that is completed']]);
    await telling.update('3', { addBlocks: ['1'] }, 'team-lead');
    expect(told.at(-1)![1]).toMatch(/^task #1 "build" .* is now blocked by task 2 "design" \(pending\), task 3 "ship" \(pending\): .* once those are completed$/);
    told.length = 0;
    await telling.update('1', { addBlockedBy: ['3'] }, 'bob'); // its owner knows
    await telling.update('3', { addBlockedBy: ['2'] }, 'team-lead'); // pending: nobody at work on it
    expect(told).toEqual([]);
  });
});

describe('claimNext', () => {
  it('does not wait for a blocked task somebody holds the lock of', async () => {
    await add('a', { owner: 'alice' });
    await list.claim('1', 'alice');
    await add('b', { blockedBy: ['1'] });
    const release2 = await hold('2');
    try {
      expect(await patient(300).claimNext('bob')).toBeUndefined();
    } finally {
      await release2();
    }
  });

  it('in its second pass waits only for a busy task still free when it looks again, and takes none that was taken meanwhile', async () => {
    await add('a');
    await add('b');
    const release1 = await hold('1');
    const release2 = await hold('2');
    try {
      const next = patient(3000).claimNext('bob');
      await queued('1'); // both were busy: bob waits for task 1
      await put({ id: '1', subject: 'a', owner: 'alice', status: 'in_progress' }); // the holders claimed 1 and completed 2 (nobody owning it)
      await put({ id: '2', subject: 'b', status: 'completed' });
      await release1();
      expect(await next).toBeUndefined(); // 1 refused under its lock, 2 passed over at a look: no wait for 2's lock
      expect(await onDisk('1')).toMatchObject({ owner: 'alice' });
    } finally {
      await release2();
    }
  });

  it("passes on a lock timeout instead of returning 'nothing to claim'", async () => {
    await add('a');
    const release1 = await hold('1');
    try {
      const e = await patient(300)
        .claimNext('bob')
        .catch((err: unknown) => err);
      expect(isSwarmError(e, 'lock_timeout'), String(e)).toBe(true);
    } finally {
      await release1();
    }
  });

  it('a blocker id that is no task id (a hand-written file) does not block', async () => {
    await mkdir(dir(), { recursive: true, mode: 0o700 });
    await put({ id: '1', blockedBy: ['abc'] });
    expect(await list.claim('1', 'alice')).toMatchObject({ owner: 'alice', status: 'in_progress' });
    await put({ id: '2', blockedBy: ['../x'] });
    expect((await list.claimNext('bob'))?.id).toBe('2');
  });
});

describe('release', () => {
  it("touches neither another member's task nor the member's completed one (their locks may be busy)", async () => {
    for (const s of ['a', 'b', 'c']) await add(s);
    await list.claim('1', 'alice');
    await list.claim('2', 'bob');
    await list.claim('3', 'alice');
    await list.update('3', { status: 'completed' }, 'alice');
    const release2 = await hold('2');
    const release3 = await hold('3');
    try {
      expect((await patient(300).release('alice')).map((t) => t.id)).toEqual(['1']);
    } finally {
      await release2();
      await release3();
    }
    expect(await onDisk('2')).toMatchObject({ owner: 'bob', status: 'in_progress' });
    expect(await onDisk('3')).toMatchObject({ owner: 'alice', status: 'completed' });
  });

  it('looks again under the lock: a task completed or given to somebody else meanwhile stays as it is', async () => {
    for (const s of ['a', 'b', 'c']) await add(s);
    for (const id of ['1', '2', '3']) await list.claim(id, 'alice');
    const release2 = await hold('2');
    const release3 = await hold('3');
    const released = list.release('alice');
    await queued('2');
    await put({ id: '2', subject: 'b', owner: 'alice', status: 'completed' });
    await put({ id: '3', subject: 'c', owner: 'carol', status: 'in_progress' });
    await release2();
    await release3();
    expect((await released).map((t) => t.id)).toEqual(['1']);
    expect(await onDisk('2')).toMatchObject({ owner: 'alice', status: 'completed' });
    expect(await onDisk('3')).toMatchObject({ owner: 'carol', status: 'in_progress' });
  });

  it('passes over a task deleted meanwhile', async () => {
    await add('a');
    await add('b');
    await list.claim('1', 'alice');
    await list.claim('2', 'alice');
    const release2 = await hold('2');
    const released = list.release('alice');
    await queued('2');
    await rm(file('2'));
    await release2();
    expect((await released).map((t) => t.id)).toEqual(['1']);
  });

  it('passes on a lock timeout', async () => {
    await add('a');
    await list.claim('1', 'alice');
    const release1 = await hold('1');
    try {
      const e = await patient(300)
        .release('alice')
        .catch((err: unknown) => err);
      expect(isSwarmError(e, 'lock_timeout'), String(e)).toBe(true);
    } finally {
      await release1();
    }
  });
});

describe('delete', () => {
  it('rewrites only the tasks that refer to the deleted one', async () => {
    await add('a');
    await add('b', { blockedBy: ['1'] });
    await writeFile(file('3'), JSON.stringify({ id: '3', subject: 'c', description: '', status: 'pending', blocks: [], blockedBy: [] })); // Claude Code's, unformatted
    const third = await readFile(file('3'), 'utf8');
    await list.update('1', { status: 'deleted' }, 'team-lead');
    expect(await readFile(file('3'), 'utf8')).toBe(third);
    expect((await onDisk('2')).blockedBy).toEqual([]);
    expect((await readdir(dir())).filter((n) => n.endsWith('.json')).sort()).toEqual(['2.json', '3.json']);
  });

  it('goes through when a task referring to it is deleted meanwhile', async () => {
    await add('a');
    await add('b', { blockedBy: ['1'] });
    const release2 = await hold('2');
    const deleted = list.update('1', { status: 'deleted' }, 'team-lead');
    await queued('2');
    await rm(file('2'));
    await release2();
    expect(await deleted).toBeUndefined();
    expect((await readdir(dir())).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});
