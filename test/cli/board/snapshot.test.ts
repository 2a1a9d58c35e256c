// What the board shows of a team (docs/board.md), read from real files in a temp root: members as
// `swarm status --json` reports them plus colour, latest activity and worktree branch; the task
// graph with its blocked edges; the inboxes as a timeline with control frames in words; the team's
// totals against its budget; and nothing of the environment or the root's paths. A Claude Code
// teammate's inbox-only permission request is shown like any other.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { encodeControl } from '../../../src/protocol/control.js';
import type { Task } from '../../../src/protocol/task.js';
import { setTeamBudget } from '../../../src/team/spend.js';
import { addMember, createTeam, updateTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { TaskList } from '../../../src/tasks/index.js';
import { layoutTasks } from '../../../src/cli/board/task-graph.js';
import { boardSnapshot } from '../../../src/cli/board/snapshot.js';
import { startSleeper, writeStatus } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';

const task = (id: string, extra: Partial<Task> = {}): Task => ({ id, subject: `task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...extra });

describe('the board snapshot', () => {
  let root: string;
  let team: Team;
  useTempRoot(async (dir) => {
    root = dir;
    await createTeam(root, { name: 't', cwd: root });
    team = new Team(root, 't');
    await addMember(team, { name: 'w1', cwd: root, color: 'blue' });
    await addMember(team, { name: 'w2', cwd: root });
  });

  it('shows members with their state, task, activity, figures and branch; the timeline in words; totals against the budget', async () => {
    await updateTeam(team, (c) => void (c.members.find((m) => m.name === 'w1')!.worktreePath = `${root}/repo/.claude/worktrees/t-w1`));
    await setTeamBudget(team, { usd: 1, tokens: 10_000 }); // counts what is spent from now on
    const pid = await startSleeper();
    await updateTeam(team, (c) => void (c.members.find((m) => m.name === 'w1')!.pid = pid));
    await writeStatus(root, 't', 'w1', { pid, state: 'working', inputTokens: 2000, outputTokens: 300, totalTokens: 2300, costUsd: 0.25, toolUses: 4, activities: [{ at: 1, text: 'Read a.ts' }, { at: 2, text: 'Bash: npm test' }] });
    const list = new TaskList(team);
    await list.create({ subject: 'Parse', description: '' }, 'team-lead');
    await list.update('1', { owner: 'w1', status: 'in_progress' }, 'team-lead');
    const mail = new Mailbox({ team });
    await mail.append('team-lead', { from: 'w1', text: 'found it <b>here</b>', summary: 'progress' });
    await mail.append('team-lead', { from: 'w2', text: encodeControl({ type: 'idle_notification', from: 'w2', timestamp: new Date().toISOString(), summary: 'done with the docs' }) });

    const s = await boardSnapshot(team, { env: { SECRET_TOKEN_X: 'sekrit-value-123' } });
    const w1 = s.members.find((m) => m.name === 'w1')!;
    expect(s.members.map((m) => m.name)).toEqual(['team-lead', 'w1', 'w2']);
    expect(w1).toMatchObject({ state: 'working', task: { id: '1', subject: 'Parse' }, activity: 'Bash: npm test', inputTokens: 2000, outputTokens: 300, costUsd: 0.25, color: 'blue', branch: 'swarm/t/w1' });
    expect(s.members.find((m) => m.name === 'w2')).toMatchObject({ branch: null, activity: null });
    expect(s.messages.map((m) => [m.from, m.to, m.kind, m.text])).toEqual([
      ['w1', 'team-lead', 'message', 'found it <b>here</b>'],
      ['w2', 'team-lead', 'event', 'w2 is idle: done with the docs'],
    ]);
    expect(s.totals).toMatchObject({ inputTokens: 2000, outputTokens: 300, costUsd: 0.25, budget: { usd: 1, tokens: 10_000, leftUsd: 0.75, leftTokens: 7700, reached: null } });
    const json = JSON.stringify(s);
    expect(json).not.toContain('sekrit-value-123');
    expect(json).not.toContain(root); // no path of the root, its keys included
  });

  it("takes in a Claude Code teammate's request that exists only as a frame in team-lead's inbox, as swarm permissions does", async () => {
    await new Mailbox({ team }).append('team-lead', {
      from: 'w2',
      text: encodeControl({ type: 'permission_request', request_id: 'perm-cc-1', agent_id: 'w2', tool_name: 'Bash', tool_use_id: 'toolu_9', description: 'List files', input: { command: 'ls -la' }, permission_suggestions: [] }),
    });
    const s = await boardSnapshot(team, { env: {} });
    expect(s.permissions).toEqual([expect.objectContaining({ id: 'perm-cc-1', worker: 'w2', toolName: 'Bash', what: 'ls -la', description: 'List files' })]);
    expect(s.messages.at(-1)).toMatchObject({ kind: 'event', text: 'w2 asks to run Bash: ls -la [perm-cc-1]' });
  });

  it('draws each dependency once, blocked while its blocker is open, and leaves out internal tasks', () => {
    const g = layoutTasks([
      task('1', { blocks: ['2', '3'] }),
      task('2', { blockedBy: ['1'] }),
      task('3', { blockedBy: ['1', '4'], status: 'in_progress', owner: 'w1' }),
      task('4', { status: 'completed', blocks: ['3'] }),
      task('5', { metadata: { _internal: true } }),
    ]);
    expect(g.nodes.map((n) => [n.id, n.blocked])).toEqual([['1', false], ['2', true], ['3', true], ['4', false]]);
    expect(g.edges.map((e) => `${e.from}>${e.to}:${e.blocked ? 'blocked' : 'done'}`).sort()).toEqual(['1>2:blocked', '1>3:blocked', '4>3:done']);
    for (const e of g.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
    const x = Object.fromEntries(g.nodes.map((n) => [n.id, n.x]));
    expect(x['1']).toBeLessThan(x['2']!); // left to right along the edges
    expect(g.nodes.find((n) => n.id === '3')).toMatchObject({ owner: 'w1', status: 'in_progress' });
  });
});
