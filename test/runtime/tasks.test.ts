// The team's task list in the teammate runtime (SPEC §8), end to end: a real teammate process on the
// stand-in Messages API, the task files in a temp root. It claims the next free task when a turn
// ends with an empty inbox, completes it with TaskUpdate (its idle_notification then carries
// completedTaskId / completedStatus), and uses TaskCreate / TaskList / TaskGet / TaskUpdate with
// Claude Code's result texts; a refused claim comes back as an is_error result naming the reason.
import { describe, expect, it } from 'vitest';
import { TaskList } from '../../src/tasks/index.js';
import { Team } from '../../src/team/team.js';
import { controls, requestsWith, setupRuntime, toolResults, waitFor, waitForControl, type RuntimeEnv } from '../support/runtime-harness.js';

const list = (e: RuntimeEnv): TaskList => new TaskList(new Team(e.root, 't'));

/** The tool_result of the request that answered the `n`-th (0-based) call of `tool`. */
function resultOf(e: RuntimeEnv, tool: string, n = 0): { content: string; is_error?: boolean } {
  const reqs = e.server.requests.filter((r) => r.agent === 'w1' && r.body !== undefined && JSON.stringify(r.body.messages.at(-1)).includes('tool_result'));
  const answers = reqs.filter((r) => {
    const prev = r.body!.messages.at(-2);
    return prev !== undefined && JSON.stringify(prev.content).includes(`"name":"${tool}"`);
  });
  return toolResults(answers[n]!)[0]!;
}

describe('the Task tools and auto-claim in the teammate runtime', () => {
  it('claims the lowest free task when its turn ends, completes it, and says so in the idle notification', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Say ready' }, reply: 'Ready.' },
        {
          match: { agent: 'w1', lastUser: 'You claimed task #2: Write the parser' },
          reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '2', status: 'completed' } }] },
        },
        { match: { agent: 'w1', toolResult: 'TaskUpdate' }, reply: 'Parser written.' },
      ],
    });
    const tasks = list(env);
    const blocker = await tasks.create({ subject: 'Design', description: 'the design' }, 'team-lead');
    await tasks.create({ subject: 'Write the parser', description: 'Parse the CLI args.' }, 'team-lead');
    await tasks.create({ subject: 'Blocked work', description: 'after design', blockedBy: [blocker.id] }, 'team-lead');
    await tasks.claim(blocker.id, 'w2'); // #1 taken by w2, #3 blocked by it: #2 is the free one
    await env.lead.append('w1', { from: 'team-lead', text: 'Say ready' });
    env.start();

    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 2, 20_000);
    expect(idle[0]!.message).not.toHaveProperty('completedTaskId');
    expect(idle[1]!.message).toMatchObject({ from: 'w1', idleReason: 'available', summary: 'Parser written.', completedTaskId: '2', completedStatus: 'completed' });
    const [claimTurn] = requestsWith(env.server, 'You claimed task #2');
    expect(claimTurn).toBeDefined();
    const claimText = JSON.stringify(claimTurn!.body!.messages.at(-1));
    expect(claimText).toContain('You claimed task #2: Write the parser');
    expect(claimText).toContain('Parse the CLI args.');
    expect(resultOf(env, 'TaskUpdate').content).toMatch(/^Updated task #2 status\n\nTask completed\./);
    expect(await tasks.get('2')).toMatchObject({ status: 'completed', owner: 'w1' });
    expect(await tasks.get('3')).toMatchObject({ status: 'pending' });
    expect((await tasks.get('3')).owner).toBeUndefined();
    // Nothing else was free: no third turn.
    await new Promise((r) => setTimeout(r, 300));
    expect(requestsWith(env.server, 'You claimed task #3')).toEqual([]);
  });

  it('an idle teammate claims a task created (or freed) while it waits, without being messaged', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Say ready' }, reply: 'Ready.' },
        { match: { agent: 'w1', lastUser: 'You claimed task #1: Late work' }, reply: 'On it.' },
      ],
    });
    await env.lead.append('w1', { from: 'team-lead', text: 'Say ready' });
    env.start();
    await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000); // idle, the list empty
    await list(env).create({ subject: 'Late work', description: 'created after it went idle' }, 'team-lead');
    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 2, 20_000);
    expect(idle[1]!.message).toMatchObject({ from: 'w1', summary: 'On it.' });
    expect(await list(env).get('1')).toMatchObject({ status: 'in_progress', owner: 'w1' });
  });

  it('claims one task at a time: while its claimed task is unfinished, a new one stays free', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Say ready' }, reply: 'Ready.' },
        { match: { agent: 'w1', lastUser: 'You claimed task #1: First' }, reply: 'Working on the first.' },
        { match: { agent: 'w1', lastUser: 'How is it going?' }, reply: 'Still on the first.' },
        { match: { agent: 'w1', lastUser: 'You claimed task #2: Second' }, reply: 'Second taken.' },
      ],
    });
    await list(env).create({ subject: 'First', description: 'one' }, 'team-lead');
    await env.lead.append('w1', { from: 'team-lead', text: 'Say ready' });
    env.start();
    await waitForControl(env, 'team-lead', 'idle_notification', 2, 20_000); // then claimed #1, left it in progress
    await list(env).create({ subject: 'Second', description: 'two' }, 'team-lead');
    await env.lead.append('w1', { from: 'team-lead', text: 'How is it going?' });
    await waitForControl(env, 'team-lead', 'idle_notification', 3, 20_000);
    expect(requestsWith(env.server, 'You claimed task #2')).toEqual([]);
    expect((await list(env).get('2')).owner).toBeUndefined();
    // #1 completed (by the lead here): the next idle moment takes #2.
    await list(env).update('1', { status: 'completed' }, 'team-lead');
    await waitFor(async () => (await list(env).get('2')).owner === 'w1', 20_000);
  });

  it('TaskCreate, TaskList, TaskGet and TaskUpdate read like Claude Code; refused claims are is_error results saying why', async () => {
    const env = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'Coordinate' },
          reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Write docs', description: 'The README section' } }] },
        },
        { match: { agent: 'w1', toolResult: 'TaskCreate' }, reply: { content: [{ type: 'tool_use', name: 'TaskList', input: {} }] } },
        { match: { agent: 'w1', toolResult: 'TaskList' }, reply: { content: [{ type: 'tool_use', name: 'TaskGet', input: { taskId: '5' } }] } },
        {
          match: { agent: 'w1', toolResult: 'TaskGet' },
          reply: {
            content: [
              { type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', owner: 'w1', status: 'in_progress' } },
              { type: 'tool_use', name: 'TaskUpdate', input: { taskId: '4', status: 'in_progress' } },
              { type: 'tool_use', name: 'TaskUpdate', input: { taskId: '2', owner: 'w1', status: 'in_progress' } },
              { type: 'tool_use', name: 'TaskUpdate', input: { taskId: '3', status: 'in_progress' } },
              { type: 'tool_use', name: 'TaskUpdate', input: { taskId: '5', owner: 'w2' } },
              { type: 'tool_use', name: 'TaskGet', input: { taskId: '99' } },
            ],
          },
        },
        { match: { agent: 'w1', toolResult: 'TaskUpdate' }, reply: 'Coordinated.' },
      ],
    });
    const tasks = list(env);
    await tasks.create({ subject: 'Owned by w2', description: 'theirs' }, 'team-lead');
    await tasks.claim('1', 'w2');
    await tasks.create({ subject: 'Done already', description: 'finished' }, 'team-lead');
    await tasks.update('2', { status: 'completed' }, 'team-lead');
    await tasks.create({ subject: 'Blocker', description: 'first' }, 'team-lead');
    await tasks.create({ subject: 'Blocked', description: 'second', blockedBy: ['3'] }, 'team-lead');
    await env.lead.append('w1', { from: 'team-lead', text: 'Coordinate the work' });
    env.start();
    const [idle] = await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    expect(idle!.message).toMatchObject({ summary: 'Coordinated.' });
    expect(idle!.message).not.toHaveProperty('completedTaskId');

    expect(resultOf(env, 'TaskCreate')).toEqual({ content: 'Task #5 created successfully: Write docs' });
    expect(resultOf(env, 'TaskList')).toEqual({
      content: ['#1 [in_progress] Owned by w2 (w2)', '#2 [completed] Done already', '#3 [pending] Blocker', '#4 [pending] Blocked [blocked by #3]', '#5 [pending] Write docs'].join('\n'),
    });
    expect(resultOf(env, 'TaskGet')).toEqual({ content: 'Task #5: Write docs\nStatus: pending\nDescription: The README section' });

    // The six results of the one round, in order.
    const round = env.server.requests.find((r) => r.agent === 'w1' && lastResultsCount(r) === 6)!;
    const [taken, blocked, resolved, claimed, assigned, missing] = toolResults(round);
    expect(taken).toEqual({ is_error: true, content: 'task 1 is already claimed by w2; pick another task (TaskList)' });
    expect(blocked).toMatchObject({ is_error: true, content: expect.stringContaining('blocked by task 3 "Blocker"') });
    expect(resolved).toMatchObject({ is_error: true });
    expect(resolved!.content).toMatch(/complet/);
    expect(claimed).toEqual({ content: 'Updated task #3 owner, status' });
    expect(assigned).toEqual({ content: 'Updated task #5 owner' });
    expect(missing).toEqual({ is_error: true, content: 'no task 99 (see TaskList)' });

    expect(await tasks.get('1')).toMatchObject({ owner: 'w2', status: 'in_progress' });
    expect(await tasks.get('3')).toMatchObject({ owner: 'w1', status: 'in_progress' });
    expect(await tasks.get('5')).toMatchObject({ owner: 'w2', status: 'pending' });
    // Giving #5 to w2 told w2, from w1, through the ordinary send path.
    const frames = await waitFor(async () => {
      const f = await controls(env, 'w2', 'task_assignment');
      return f.length > 0 ? f : undefined;
    }, 5000, 'the task_assignment in w2\'s inbox');
    expect(frames[0]!.entry).toMatchObject({ from: 'w1', color: 'blue' });
    expect(frames[0]!.message).toMatchObject({ type: 'task_assignment', taskId: '5', subject: 'Write docs', description: 'The README section', assignedBy: 'w1' });
  });
});

function lastResultsCount(r: RuntimeEnv['server']['requests'][number]): number {
  const last = r.body?.messages.at(-1);
  if (!last || typeof last.content === 'string') return 0;
  return last.content.filter((b) => b.type === 'tool_result').length;
}
