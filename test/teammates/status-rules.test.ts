// How `swarm status`, the console, the board and the leads read a member (teammates/status-report.ts),
// in process: the state rules (stale past the heartbeat window, a config flag without a status file,
// a swarm teammate not started yet), the team's total and backend, and a crash found by a reader that
// may release (the console, an agent lead): the dead member's unfinished tasks go back, one notice
// to team-lead; a member it was not asked to release keeps its task for `swarm resume`.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import type { StatusFile } from '../../src/protocol/status.js';
import { TaskList } from '../../src/tasks/index.js';
import { addMember, readTeam, updateMember } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { collectStatus, STALE_HEARTBEAT_MS, stoppedAmong, teamBackend, teammateState, teamTotal } from '../../src/teammates/status-report.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { fakeTmux } from '../support/fake-tmux.js';
import { deadPid, startSleeper, writePendingFor, writeStatus } from '../support/team-fixture.js';

const now = 1_000_000;
const status = (state: StatusFile['state'], heartbeatAt = now): StatusFile => ({ name: 'w', pid: 1, state, heartbeatAt }) as StatusFile;

describe('teammateState', () => {
  it('a heartbeat older than the window is stale, not its last state; at the window it still counts', () => {
    expect(teammateState({ alive: true, status: status('working', now - STALE_HEARTBEAT_MS), isActive: undefined, now })).toBe('working');
    expect(teammateState({ alive: true, status: status('working', now - STALE_HEARTBEAT_MS - 1), isActive: undefined, now })).toBe('stale');
  });

  it('without a status file: the config flag, then a swarm teammate not started yet, else unknown', () => {
    const bare = { alive: null, status: undefined, now };
    expect(teammateState({ ...bare, isActive: true })).toBe('working');
    expect(teammateState({ ...bare, isActive: false, runtime: 'swarm' })).toBe('idle');
    expect(teammateState({ ...bare, isActive: undefined, runtime: 'swarm' })).toBe('starting');
    expect(teammateState({ ...bare, isActive: undefined, runtime: 'claude' })).toBe('unknown');
    expect(teammateState({ ...bare, isActive: undefined })).toBe('unknown');
  });
});

describe('the team total and backend', () => {
  it('sums tokens and the priced costs (to the micro-dollar), and counts members with tokens but no price', () => {
    expect(
      teamTotal([
        { inputTokens: 10, outputTokens: 5, costUsd: 0.1000004 },
        { inputTokens: 3, outputTokens: null, costUsd: null },
        { inputTokens: null, outputTokens: 2, costUsd: null },
        { inputTokens: null, outputTokens: null, costUsd: null },
        { inputTokens: 1, outputTokens: 1, costUsd: 0.2 },
      ]),
    ).toEqual({ inputTokens: 14, outputTokens: 8, costUsd: 0.3, unpricedMembers: 2 });
  });

  it("the configured backend, else the teammates' one, 'mixed' for several, null for none (the leader's not counted)", async () => {
    const config = (kinds: (string | undefined)[], backend?: string) =>
      ({ members: [{ name: 'team-lead', backendType: 'iterm2' }, ...kinds.map((k, i) => ({ name: `w${i}`, backendType: k }))], ...(backend ? { swarm: { backend } } : {}) }) as never;
    expect(teamBackend(config(['tmux', 'tmux']))).toBe('tmux');
    expect(teamBackend(config(['tmux', 'in-process']))).toBe('mixed');
    expect(teamBackend(config([undefined]))).toBeNull();
    expect(teamBackend(config([]))).toBeNull();
    expect(teamBackend(config(['tmux'], 'ssh'))).toBe('ssh');
  });
});

describe('a crash found by a reader that releases', () => {
  let team: Team;
  useStandInTeam('swarm-status-rules-', (s) => (team = s.team));

  it("only the members it is asked to release give their unfinished tasks back, with one notice each; the others keep theirs", async () => {
    // Dead: the pane gone from tmux while the process lives on (a crash swarm status shows as dead).
    const tmux = await fakeTmux();
    for (const name of ['w1', 'w2']) {
      await addMember(team, { name });
      await updateMember(team, name, { pid: await startSleeper(), tmuxPaneId: `%${name.slice(1)}`, backendType: 'tmux', isActive: true });
    }
    await tmux.list([]);
    const tasks = new TaskList(team);
    await tasks.create({ subject: 'one', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'w1');
    await tasks.create({ subject: 'two', description: 'x' }, 'team-lead');
    await tasks.claim('2', 'w2');
    const asked: string[] = [];
    const { report } = await collectStatus(team, { releaseDead: (name) => (asked.push(name), name === 'w1') });
    expect(report.members.slice(1).map((m) => m.state)).toEqual(['dead', 'dead']);
    expect(asked).toEqual(['w1', 'w2']);
    expect(await tasks.get('1')).toMatchObject({ status: 'pending' });
    expect((await tasks.get('1')).owner).toBeUndefined();
    expect(await tasks.get('2')).toMatchObject({ status: 'in_progress', owner: 'w2' });
    const notices = (await new Mailbox({ team }).read('team-lead')).filter((m) => m.from === 'system');
    expect(notices.map((m) => [m.text, m.summary])).toEqual([
      [
        'w1 has died (its pane or process is gone). 1 task(s) were unassigned: #1 "one". Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.',
        "w1's tasks released",
      ],
    ]);
    // Without releaseDead (swarm status), nobody's task moves.
    await tasks.claim('1', 'w1');
    await collectStatus(team, {});
    expect(await tasks.get('1')).toMatchObject({ status: 'in_progress', owner: 'w1' });
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead', 'w1', 'w2']);
  });
});

describe('what status reads, and what it cannot', () => {
  let team: Team;
  useStandInTeam('swarm-status-rules-', (s) => (team = s.team));

  it('a file it cannot read is a warning naming it, and the rest is reported; each stopped recipient found by name', async () => {
    for (const name of ['w1', 'w2', 'w3']) {
      await addMember(team, { name });
      await updateMember(team, name, { pid: await deadPid(), isActive: false });
    }
    await updateMember(team, 'w3', { hibernatedAt: 1234 });
    await addMember(team, { name: 'w4' }); // marked asleep, but its process is up again (woken): not hibernating
    await updateMember(team, 'w4', { pid: await startSleeper(), isActive: false, hibernatedAt: 99 });
    await addMember(team, { name: 'w5' }); // no pid in config.json; its status file names one that is gone
    await writeStatus(team.root, team.name, 'w5', { pid: await deadPid(), state: 'idle' });
    const tasks = new TaskList(team);
    await tasks.create({ subject: 'done', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'w1');
    await tasks.update('1', { status: 'completed' }, 'w1'); // a completed task is no current task
    await tasks.create({ subject: 'a', description: 'x' }, 'team-lead');
    await tasks.create({ subject: 'b', description: 'x' }, 'team-lead');
    await tasks.claim('3', 'w2');
    await tasks.update('3', { status: 'in_progress' }, 'w2');
    await writePendingFor(team.root, team.name, 'w2');
    const { report, warnings } = await collectStatus(team, {});
    expect(warnings).toEqual([]);
    expect(report.members.map((m) => [m.name, m.state, m.task?.id ?? null, m.pendingPermissions, m.hibernatingSince])).toEqual([
      ['team-lead', 'away', null, 1, null], // the leader's row counts every open question
      ['w1', 'stopped', null, 0, null],
      ['w2', 'stopped', '3', 1, null],
      ['w3', 'hibernating', null, 0, 1234],
      ['w4', 'idle', null, 0, null],
      ['w5', 'stopped', null, 0, null],
    ]);
    expect(await stoppedAmong(team, ['W2', 'w3', 'nobody'], {})).toEqual(['w2']);

    await fs.mkdir(team.paths.status('w1'), { recursive: true });
    await fs.mkdir(team.paths.inbox('w2'), { recursive: true });
    await fs.rm(team.paths.pending, { recursive: true });
    await fs.writeFile(team.paths.pending, 'not a directory\n');
    await fs.rm(team.paths.tasks.dir, { recursive: true });
    await fs.writeFile(team.paths.tasks.dir, 'not a directory\n');
    const broken = await collectStatus(team, {});
    expect(broken.warnings.map((w) => w.replace(/:.*/s, '')).sort()).toEqual(['inbox of w2', 'pending permissions', 'status of w1', 'task list']);
    expect(broken.report.members.map((m) => [m.name, m.state, m.unread])).toEqual([
      ['team-lead', 'away', 0],
      ['w1', 'stopped', 0],
      ['w2', 'stopped', null],
      ['w3', 'hibernating', 0],
      ['w4', 'idle', 0],
      ['w5', 'stopped', 0],
    ]);
    expect(broken.report.tasks).toEqual({ done: 0, total: 0 });
  });
});
