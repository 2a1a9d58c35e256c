// Who may change a task (tasks/task-list's assertMayChange), on real files: an owned task is changed
// only by its owner or team-lead, only team-lead gives it to somebody else, a member naming itself
// the owner of another's task is refused as already_claimed; unowned tasks are anyone's; the rule is
// applied to the task as it is under its lock; every refusal writes nothing and sends no frame.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskAssignment } from '../../src/protocol/control.js';
import type { Task } from '../../src/protocol/task.js';
import { queueDirFor } from '../../src/storage/lock.js';
import { TaskList, type TaskPatch } from '../../src/tasks/index.js';
import { Team } from '../../src/team/team.js';
import { refusal, snapshot as taskFiles } from '../support/task-files.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root: string;
let sent: { to: string; frame: TaskAssignment }[];
let list: TaskList;

useTempRoot((dir) => (root = dir), 'swarm-task-owner-');
beforeEach(() => {
  sent = [];
  list = new TaskList(new Team(root, 'crew'), { notify: async (to, frame) => void sent.push({ to, frame }) });
});

const dir = (): string => path.join(root, 'tasks/crew');
const file = (id: string): string => path.join(dir(), `${id}.json`);
const onDisk = async (id: string): Promise<Task> => JSON.parse(await readFile(file(id), 'utf8')) as Task;
const add = (subject: string, extra: { blockedBy?: string[]; owner?: string } = {}): Promise<Task> => list.create({ subject, description: '', ...extra }, 'team-lead');
const snapshot = (): Promise<Record<string, string>> => taskFiles(dir(), (n) => n.endsWith('.json') || n === '.highwatermark');

/** Task 1, bob's and in progress (he claimed it himself: no frame). */
async function bobsTask(): Promise<Task> {
  await add('parser');
  return list.claim('1', 'bob');
}

describe("another member's task", () => {
  const OWNED = 'task 1 is owned by bob; only bob or team-lead can change it (ask team-lead, or pick another task: swarm tasks list)';
  const CLAIMED = 'task 1 is already claimed by bob; pick another task (swarm tasks list)';
  const cases: [string, TaskPatch, string, string][] = [
    ['completing it', { status: 'completed' }, 'not_owner', OWNED],
    ['putting it back to pending', { status: 'pending' }, 'not_owner', OWNED],
    ['renaming it', { subject: 'mine now' }, 'not_owner', OWNED],
    ['rewriting its description', { description: 'do it differently' }, 'not_owner', OWNED],
    ['its activeForm', { activeForm: 'Parsing' }, 'not_owner', OWNED],
    ['its metadata', { metadata: { k: 1 } }, 'not_owner', OWNED],
    ['clearing its owner', { owner: null }, 'not_owner', OWNED],
    ['giving it to a third member', { owner: 'carol' }, 'not_owner', OWNED],
    ['deleting it', { status: 'deleted' }, 'not_owner', OWNED],
    ['a dependency on it', { addBlockedBy: ['2'] }, 'not_owner', OWNED],
    ['taking it: owner self, status pending', { owner: 'alice', status: 'pending' }, 'already_claimed', CLAIMED],
    ['taking it: owner self alone', { owner: 'alice' }, 'already_claimed', CLAIMED],
    ['taking it: owner self, in_progress', { owner: 'alice', status: 'in_progress' }, 'already_claimed', CLAIMED],
  ];
  it.each(cases)('is refused to a non-owner: %s, with nothing written and nobody told', async (_, patch, kind, message) => {
    await bobsTask();
    await add('other');
    const before = await snapshot();
    const e = await refusal(list.update('1', patch, 'alice'));
    expect([e.kind, e.message]).toEqual([kind, message]);
    expect(await snapshot()).toEqual(before);
    expect(sent).toEqual([]);
  });

  it('cannot be made to wait on a task of the caller (its blockedBy would change): addBlocks naming it is refused', async () => {
    await bobsTask();
    await add('mine');
    const before = await snapshot();
    const e = await refusal(list.update('2', { addBlocks: ['1'] }, 'alice'));
    expect([e.kind, e.message]).toEqual(['not_owner', 'task 1 is owned by bob; only bob or team-lead can change it (ask team-lead, or pick another task: swarm tasks list)']);
    expect(await snapshot()).toEqual(before);
  });

  it("may block the caller's own task (only its blocks list gains the mirror entry)", async () => {
    await bobsTask();
    await add('mine');
    await list.update('2', { addBlockedBy: ['1'] }, 'alice');
    expect((await onDisk('2')).blockedBy).toEqual(['1']);
    expect(await onDisk('1')).toMatchObject({ owner: 'bob', status: 'in_progress', blocks: ['2'] });
  });

  it("owned by its agentId (Claude Code's way of writing it) is that member's too", async () => {
    await add('parser');
    await writeFile(file('1'), JSON.stringify({ ...(await onDisk('1')), owner: 'bob@crew', status: 'in_progress' }, null, 2));
    expect((await refusal(list.update('1', { status: 'completed' }, 'alice'))).message).toBe(
      'task 1 is owned by bob@crew; only bob@crew or team-lead can change it (ask team-lead, or pick another task: swarm tasks list)',
    );
    expect(await list.update('1', { status: 'completed' }, 'bob')).toMatchObject({ owner: 'bob@crew', status: 'completed' });
  });
});

describe("the owner's own task", () => {
  it('the owner changes it freely, completes it, or gives it back to the list', async () => {
    await bobsTask();
    expect(await list.update('1', { subject: 'the parser', activeForm: 'Parsing', metadata: { k: 1 } }, 'bob')).toMatchObject({ subject: 'the parser', owner: 'bob' });
    expect(await list.update('1', { owner: 'bob', status: 'completed' }, 'bob')).toMatchObject({ status: 'completed' });
    await add('next');
    await list.claim('2', 'bob');
    const back = await list.update('2', { owner: null, status: 'pending' }, 'bob');
    expect(back).toMatchObject({ status: 'pending' });
    expect(back).not.toHaveProperty('owner');
    expect(sent).toEqual([]);
  });

  it('only team-lead gives it to somebody else; the owner is told how', async () => {
    await bobsTask();
    const before = await snapshot();
    const e = await refusal(list.update('1', { owner: 'carol' }, 'bob'));
    expect([e.kind, e.message]).toEqual(['not_owner', 'task 1 is yours; only team-lead can give it to carol: ask team-lead, or clear its owner to put it back on the list']);
    expect(await snapshot()).toEqual(before);
    expect(sent).toEqual([]);
  });
});

describe('team-lead', () => {
  it("changes, reassigns and deletes anyone's task; the new owner is told", async () => {
    await bobsTask();
    await add('other');
    expect(await list.update('1', { owner: 'carol' }, 'team-lead')).toMatchObject({ owner: 'carol', status: 'in_progress' });
    expect(sent.map((s) => [s.to, s.frame.taskId, s.frame.assignedBy])).toEqual([['carol', '1', 'team-lead']]);
    expect(await list.update('1', { subject: 'renamed', status: 'completed' }, 'team-lead')).toMatchObject({ subject: 'renamed', status: 'completed', owner: 'carol' });
    await list.update('2', { addBlocks: ['1'] }, 'team-lead');
    expect((await onDisk('1')).blockedBy).toEqual(['2']);
    expect(await list.update('1', { status: 'deleted' }, 'team-lead')).toBeUndefined();
  });
});

describe('an unowned task', () => {
  it('is anyone\'s to change, to assign (the assignee is told), or to delete', async () => {
    await add('a');
    await add('b');
    expect(await list.update('1', { subject: 'renamed', status: 'completed' }, 'alice')).toMatchObject({ subject: 'renamed', status: 'completed' });
    expect(await list.update('2', { owner: 'carol' }, 'alice')).toMatchObject({ owner: 'carol' });
    expect(sent.map((s) => [s.to, s.frame.assignedBy])).toEqual([['carol', 'alice']]);
    await add('c');
    expect(await list.update('3', { status: 'deleted' }, 'alice')).toBeUndefined();
  });
});

describe('the rule is applied under the task lock', () => {
  it('a task claimed by somebody else while the change waited for the lock is refused, and their claim stays', async () => {
    await add('a');
    // Another claimer (Claude Code's way: proper-lockfile on the task file) is at task 1 right now.
    const release = await lockfile.lock(file('1'), { retries: 0 });
    const completing = list.update('1', { status: 'completed' }, 'alice'); // unowned when alice asked
    await waitFor(async () => (await readdir(queueDirFor(file('1'))).catch(() => [])).length > 0, 10_000, "alice's update waiting for task 1's lock");
    await writeFile(file('1'), JSON.stringify({ ...(await onDisk('1')), owner: 'bob', status: 'in_progress' }, null, 2)); // the holder's claim
    await release();
    expect((await refusal(completing)).kind).toBe('not_owner');
    expect(await onDisk('1')).toMatchObject({ owner: 'bob', status: 'in_progress' });
  });
});
