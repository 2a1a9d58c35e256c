// The Task tools in-process on a real temp root (the process-level flow is in test/runtime/
// tasks.test.ts): Claude Code's result texts, blockers shown only while open, ids written "#3",
// in_progress alone taking an unowned task, unassigning, deleting, bad input as errors; the
// ownership rules as the caller (a teammate, or the lead as team-lead) meets them; taking a task
// through the claim rules (an open blocker refuses it); only real changes reported and written; the
// caps in the schema; odd entries named in TaskList.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { findTool } from '../../../src/runtime/tools/index.js';
import { PathGuard } from '../../../src/runtime/tools/paths.js';
import { ProcessGroups } from '../../../src/runtime/tools/process-groups.js';
import { AgentConfigPaths } from '../../../src/runtime/tools/agent-config.js';
import { SecretPaths } from '../../../src/runtime/tools/secrets.js';
import type { ToolContext, ToolOutput } from '../../../src/runtime/tools/types.js';
import { TaskList } from '../../../src/tasks/index.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
let ctx: ToolContext;
let tasks: TaskList;
let completed: string[];

useTempRoot((dir) => (root = dir), 'swarm-tasktools-');
beforeEach(async () => {
  const cwd = path.join(root, 'work');
  await fs.mkdir(cwd);
  tasks = new TaskList(new Team(root, 't'));
  completed = [];
  ctx = {
    cwd,
    guard: await PathGuard.create(root, cwd),
    secrets: await SecretPaths.create(root, path.join(root, 'home')),
    agentConfig: await AgentConfigPaths.create(root),
    teamRules: async () => ({ allow: [], deny: [] }),
    processes: new ProcessGroups('/bin/sh', 300),
    shellEnv: {},
    messaging: { self: 'w1', send: async () => ['team-lead'], answerShutdown: async () => 'ok' },
    plan: { mode: 'default', submit: async () => ({ content: 'approved' }) },
    tasks: {
      self: 'w1',
      list: tasks,
      completed: (id) => completed.push(id),
      member: async (name) => {
        if (!['w1', 'w2'].includes(name)) throw new Error(`no member "${name}" in team "t" (members: team-lead, w1, w2)`);
        return name;
      },
    },
  };
});

async function call(name: string, input: unknown): Promise<ToolOutput> {
  try {
    const inv = await findTool(name)!.prepare(input, ctx);
    return await inv.execute(new AbortController().signal);
  } catch (e) {
    return { content: (e as Error).message, isError: true };
  }
}

describe('Task tools', () => {
  it('TaskList: "No tasks found", then one line per task; a completed blocker no longer shows', async () => {
    expect(await call('TaskList', {})).toEqual({ content: 'No tasks found' });
    await tasks.create({ subject: 'First', description: 'a' }, 'team-lead');
    await tasks.create({ subject: 'Second', description: 'b', blockedBy: ['1'] }, 'team-lead');
    expect((await call('TaskList', {})).content).toBe('#1 [pending] First\n#2 [pending] Second [blocked by #1]');
    await tasks.claim('1', 'w2');
    await tasks.update('1', { status: 'completed' }, 'w2');
    expect((await call('TaskList', {})).content).toBe('#1 [completed] First (w2)\n#2 [pending] Second');
    expect((await call('TaskGet', { taskId: '#2' })).content).toBe('Task #2: Second\nStatus: pending\nDescription: b\nBlocked by: #1');
  });

  it('TaskUpdate: in_progress alone takes an unowned task; completing is reported; owner "" unassigns; deleted removes', async () => {
    await tasks.create({ subject: 'Work', description: 'w' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', status: 'in_progress', activeForm: 'Working' })).toEqual({ content: 'Updated task #1 activeForm, owner, status' });
    expect(await tasks.get('1')).toMatchObject({ owner: 'w1', status: 'in_progress', activeForm: 'Working' });
    expect(await call('TaskUpdate', { taskId: '1', status: 'in_progress' })).toEqual({ content: 'Task #1 is unchanged' });
    expect((await call('TaskUpdate', { taskId: '1', status: 'completed' })).content).toMatch(/^Updated task #1 status\n\nTask completed\./);
    expect(completed).toEqual(['1']);
    await tasks.create({ subject: 'Other', description: 'o', owner: 'w1' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '2', owner: '', metadata: { k: 1 } })).toEqual({ content: 'Updated task #2 owner, metadata' });
    expect((await tasks.get('2')).owner).toBeUndefined();
    expect(await call('TaskUpdate', { taskId: '2', status: 'deleted' })).toEqual({ content: 'Updated task #2 deleted' });
    expect((await tasks.list()).tasks.map((t) => t.id)).toEqual(['1']);
  });

  it('bad input and refusals are errors the model can act on', async () => {
    expect(await call('TaskGet', { taskId: 'abc' })).toMatchObject({ isError: true, content: expect.stringContaining('taskId: expected a task id like "3"') });
    expect(await call('TaskCreate', { description: 'no subject' })).toMatchObject({ isError: true, content: expect.stringContaining('subject') });
    expect(await call('TaskUpdate', { taskId: '7', status: 'done' })).toMatchObject({ isError: true, content: expect.stringContaining('status') });
    await tasks.create({ subject: 'A', description: 'a' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', addBlockedBy: ['1'] })).toEqual({ isError: true, content: 'task 1 cannot block itself' });
    expect(await call('TaskUpdate', { taskId: '1', addBlockedBy: ['9'] })).toEqual({ isError: true, content: 'no task 9 to depend on (see TaskList); nothing was changed' });
    expect(await call('TaskUpdate', { taskId: '1', owner: 'nobody', status: 'in_progress' })).toEqual({ isError: true, content: 'no member "nobody" in team "t" (members: team-lead, w1, w2)' });
    expect(await tasks.get('1')).toMatchObject({ status: 'pending' }); // nothing written
  });

  it("TaskUpdate as a teammate cannot complete, take (owner self, pending) or hand on another's task; as team-lead it can", async () => {
    await tasks.create({ subject: 'Theirs', description: 't' }, 'team-lead');
    await tasks.claim('1', 'w2');
    const before = await tasks.get('1');
    const owned = 'task 1 is owned by w2; only w2 or team-lead can change it (ask team-lead, or pick another task: TaskList)';
    const claimed = 'task 1 is already claimed by w2; pick another task (TaskList)';
    expect(await call('TaskUpdate', { taskId: '1', status: 'completed' })).toEqual({ isError: true, content: owned });
    expect(await call('TaskUpdate', { taskId: '1', owner: 'w1', status: 'pending' })).toEqual({ isError: true, content: claimed });
    expect(await call('TaskUpdate', { taskId: '1', owner: 'w1', status: 'in_progress' })).toEqual({ isError: true, content: claimed });
    expect(await call('TaskUpdate', { taskId: '1', owner: 'w1' })).toEqual({ isError: true, content: claimed });
    expect(await call('TaskUpdate', { taskId: '1', subject: 'Mine' })).toEqual({ isError: true, content: owned });
    expect(await call('TaskUpdate', { taskId: '1', status: 'deleted' })).toEqual({ isError: true, content: owned });
    expect(await tasks.get('1')).toEqual(before);
    expect(completed).toEqual([]);
    ctx = { ...ctx, tasks: { ...ctx.tasks, self: 'team-lead' } }; // the agent lead
    expect(await call('TaskUpdate', { taskId: '1', owner: 'w1' })).toEqual({ content: 'Updated task #1 owner' });
    expect(await call('TaskUpdate', { taskId: '1', status: 'completed' })).toMatchObject({ content: expect.stringMatching(/^Updated task #1 status/) });
    expect(await tasks.get('1')).toMatchObject({ owner: 'w1', status: 'completed' });
  });

  it('TaskCreate and TaskUpdate refuse texts over their caps, which the schema states', async () => {
    expect(await call('TaskCreate', { subject: 'x'.repeat(501), description: '' })).toMatchObject({ isError: true, content: expect.stringContaining('subject: Too big') });
    expect(await call('TaskCreate', { subject: 's', description: 'x'.repeat(65_537) })).toMatchObject({ isError: true, content: expect.stringContaining('description: Too big') });
    await tasks.create({ subject: 'A', description: 'a' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', activeForm: 'x'.repeat(501) })).toMatchObject({ isError: true, content: expect.stringContaining('activeForm: Too big') });
    expect(await call('TaskUpdate', { taskId: '1', metadata: { b: 'x'.repeat(65_536) } })).toEqual({
      isError: true,
      content: 'metadata is 65544 characters as JSON; the most is 65536: keep large data in a file and put its path in metadata',
    });
    const schema = JSON.stringify(z.toJSONSchema(findTool('TaskCreate')!.schema, { io: 'input' }));
    expect(schema).toContain('"maxLength":500');
    expect(schema).toContain('"maxLength":65536');
    expect((await tasks.list()).tasks).toHaveLength(1);
  });

  it('TaskList names an odd entry of the list without reading it', async () => {
    await tasks.create({ subject: 'A', description: 'a' }, 'team-lead');
    const fifo = path.join(root, 'tasks/t/2.json');
    execFileSync('mkfifo', [fifo]);
    expect((await call('TaskList', {})).content).toBe(`#1 [pending] A\n(not a task: ${fifo} is a FIFO (named pipe), not a regular file: skipped, never read)`);
  });

  it("TaskList hides a task as the task list counts it: _internal set and true; _internal: false is the team's", async () => {
    await tasks.create({ subject: 'kept', description: '', metadata: { _internal: true } }, 'team-lead');
    await tasks.create({ subject: 'shown', description: '', metadata: { _internal: false } }, 'team-lead');
    expect((await call('TaskList', {})).content).toBe('#2 [pending] shown');
  });

  it('TaskList hides internal tasks and names a corrupt file; TaskGet shows owner and blocks; a change is reported once', async () => {
    const summary = async (name: string, input: unknown): Promise<string> => (await findTool(name)!.prepare(input, ctx)).summary;
    expect(await call('TaskCreate', { subject: 'A', description: 'a', activeForm: 'Doing A', metadata: { k: 1 } })).toEqual({ content: 'Task #1 created successfully: A' });
    expect(await tasks.get('1')).toMatchObject({ activeForm: 'Doing A', metadata: { k: 1 } });
    await tasks.create({ subject: 'bookkeeping', description: '', metadata: { _internal: true } }, 'team-lead');
    await tasks.create({ subject: 'B', description: 'b', blockedBy: ['1'] }, 'team-lead');
    await tasks.create({ subject: 'C', description: 'c', owner: 'w2' }, 'team-lead');
    expect((await call('TaskGet', { taskId: '1' })).content).toBe('Task #1: A\nStatus: pending\nDescription: a\nBlocks: #3');
    expect((await call('TaskGet', { taskId: '4' })).content).toBe('Task #4: C\nStatus: pending\nOwner: w2\nDescription: c');
    await fs.writeFile(path.join(root, 'tasks/t/5.json'), '{bad');
    expect((await call('TaskList', {})).content).toMatch(
      /^#1 \[pending\] A\n#3 \[pending\] B \[blocked by #1\]\n#4 \[pending\] C \(w2\)\n\(a corrupt task file was kept aside at \S+\/tasks\/t\/5\.json\.corrupt-\d+: invalid JSON: [^\n]+\)$/,
    );
    expect(await call('TaskUpdate', { taskId: '1', subject: 'A', description: 'a', activeForm: 'Doing A' })).toEqual({ content: 'Task #1 is unchanged' });
    expect(await call('TaskUpdate', { taskId: '1', description: 'a2' })).toEqual({ content: 'Updated task #1 description' });
    expect(await call('TaskUpdate', { taskId: '1', subject: 'A2', activeForm: 'Doing A2' })).toEqual({ content: 'Updated task #1 subject, activeForm' });
    expect(await call('TaskUpdate', { taskId: '3', addBlockedBy: ['1'] })).toEqual({ content: 'Task #3 is unchanged' });
    expect(await call('TaskUpdate', { taskId: '3', addBlocks: ['1'] })).toMatchObject({ isError: true });
    expect([await summary('TaskUpdate', { taskId: '#1', status: 'in_progress', owner: 'w1' }), await summary('TaskUpdate', { taskId: '1', owner: '' }), await summary('TaskUpdate', { taskId: '1' })]).toEqual([
      '#1 in_progress owner w1',
      '#1 owner (none)',
      '#1',
    ]);
    expect([await summary('TaskGet', { taskId: '1' }), await summary('TaskList', {}), await summary('TaskCreate', { subject: 'S', description: '' })]).toEqual(['#1', 'all tasks', 'S']);
    await call('TaskUpdate', { taskId: '1', status: 'in_progress' });
    expect((await call('TaskUpdate', { taskId: '1', status: 'completed' })).content).toMatch(/^Updated task #1 status\n\nTask completed\./);
    expect(await call('TaskUpdate', { taskId: '1', status: 'completed' })).toEqual({ content: 'Task #1 is unchanged' });
    expect(completed).toEqual(['1']);
  });

  it('TaskList and TaskGet separate several blockers with ", "; a corrupt task is to be recreated with TaskCreate', async () => {
    for (const s of ['A', 'B', 'C']) await tasks.create({ subject: s, description: '' }, 'team-lead');
    await tasks.create({ subject: 'D', description: '', blockedBy: ['1', '2'] }, 'team-lead');
    await tasks.update('3', { addBlocks: ['1', '2'] }, 'team-lead');
    expect((await call('TaskList', {})).content).toBe('#1 [pending] A [blocked by #3]\n#2 [pending] B [blocked by #3]\n#3 [pending] C\n#4 [pending] D [blocked by #1, #2]');
    expect((await call('TaskGet', { taskId: '1' })).content).toBe('Task #1: A\nStatus: pending\nDescription: \nBlocked by: #3\nBlocks: #4');
    expect((await call('TaskGet', { taskId: '3' })).content).toBe('Task #3: C\nStatus: pending\nDescription: \nBlocks: #1, #2');
    expect((await call('TaskGet', { taskId: '4' })).content).toBe('Task #4: D\nStatus: pending\nDescription: \nBlocked by: #1, #2');
    await fs.writeFile(path.join(root, 'tasks/t/2.json'), '{bad');
    expect(await call('TaskGet', { taskId: '2' })).toMatchObject({ isError: true, content: expect.stringMatching(/^task 2 was corrupt \(invalid JSON: [^)]*\); kept as \S+: recreate it with TaskCreate$/) });
  });

  it('taking a task goes through the claim rules: an open blocker refuses it, for an unowned task and for one assigned to the caller', async () => {
    await tasks.create({ subject: 'Blocker', description: '' }, 'team-lead');
    await tasks.create({ subject: 'Free', description: '', blockedBy: ['1'] }, 'team-lead');
    await tasks.create({ subject: 'Assigned', description: '', blockedBy: ['1'], owner: 'w1' }, 'team-lead');
    const blocked = (id: string) => ({ isError: true, content: `task ${id} is blocked by task 1 "Blocker" (pending); claim it once that is completed` });
    expect(await call('TaskUpdate', { taskId: '2', status: 'in_progress' })).toEqual(blocked('2'));
    expect(await call('TaskUpdate', { taskId: '2', owner: 'w1', status: 'in_progress' })).toEqual(blocked('2'));
    expect(await call('TaskUpdate', { taskId: '3', owner: 'w1', status: 'in_progress' })).toEqual(blocked('3'));
    // Its own task, the owner not named again: the same rules (the mutation run found this one open).
    expect(await call('TaskUpdate', { taskId: '3', status: 'in_progress' })).toEqual(blocked('3'));
    expect([(await tasks.get('2')).status, (await tasks.get('2')).owner]).toEqual(['pending', undefined]);
    expect(await tasks.get('3')).toMatchObject({ status: 'pending', owner: 'w1' });
    // A task left in progress without an owner (team-lead cleared it) is taken the same way.
    await tasks.create({ subject: 'Dropped', description: '' }, 'team-lead');
    await tasks.claim('4', 'w2');
    await tasks.update('4', { owner: '', addBlockedBy: ['1'] }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '4', status: 'in_progress' })).toEqual(blocked('4'));
    expect((await tasks.get('4')).owner).toBeUndefined();
  });

  it('owner alone takes a task without starting it; a task at work that became blocked can still be changed by its owner', async () => {
    await tasks.create({ subject: 'Later', description: '' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', owner: 'w1' })).toEqual({ content: 'Updated task #1 owner' });
    expect(await tasks.get('1')).toMatchObject({ status: 'pending', owner: 'w1' });
    await tasks.create({ subject: 'Now', description: '' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '2', status: 'in_progress' })).toEqual({ content: 'Updated task #2 owner, status' });
    await tasks.update('2', { addBlockedBy: ['1'] }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '2', owner: 'w1', activeForm: 'Still at it' })).toEqual({ content: 'Updated task #2 activeForm' });
    expect(await tasks.get('2')).toMatchObject({ status: 'in_progress', owner: 'w1', activeForm: 'Still at it' });
  });

  it("TaskUpdate reports only what changes, writes what it reports, and naming nothing to change touches no one's task", async () => {
    await tasks.create({ subject: 'A', description: 'a' }, 'team-lead');
    await tasks.create({ subject: 'B', description: 'b' }, 'team-lead');
    await tasks.create({ subject: 'C', description: 'c' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', description: 'a2' })).toEqual({ content: 'Updated task #1 description' });
    expect((await tasks.get('1')).description).toBe('a2');
    expect(await call('TaskUpdate', { taskId: '1', addBlocks: ['2'] })).toEqual({ content: 'Updated task #1 blocks' });
    expect(await call('TaskUpdate', { taskId: '1', addBlocks: ['2'] })).toEqual({ content: 'Task #1 is unchanged' });
    expect(await call('TaskUpdate', { taskId: '1', addBlocks: ['2', '3'] })).toEqual({ content: 'Updated task #1 blocks' });
    expect(await call('TaskUpdate', { taskId: '3', addBlockedBy: ['1', '2'] })).toEqual({ content: 'Updated task #3 blockedBy' });
    expect(await call('TaskUpdate', { taskId: '3', addBlockedBy: ['1', '2'] })).toEqual({ content: 'Task #3 is unchanged' });
    await tasks.update('2', { owner: 'w2' }, 'team-lead');
    const before = await tasks.get('2');
    expect(await call('TaskUpdate', { taskId: '2' })).toEqual({ content: 'Task #2 is unchanged' });
    expect(await tasks.get('2')).toEqual(before);
    ctx = { ...ctx, tasks: { ...ctx.tasks, self: 'team-lead' } }; // the agent lead
    expect(await call('TaskUpdate', { taskId: '2', owner: 'w2' })).toEqual({ content: 'Task #2 is unchanged' });
    expect(await call('TaskUpdate', { taskId: '3', owner: 'w2' })).toEqual({ content: 'Updated task #3 owner' });
    await tasks.update('1', { status: 'completed' }, 'team-lead');
    expect(await call('TaskUpdate', { taskId: '1', status: 'completed', subject: 'A done' })).toEqual({ content: 'Updated task #1 subject' });
    expect(completed).toEqual([]);
  });
});
