// `swarm status` (SPEC §6) against real processes and a real tmux server on a private socket:
// liveness comes from reality (a dead pid or a pane killed behind swarm's back shows as `dead`
// although config.json still says isActive), stale heartbeats, unread counts, pending permission
// counts, the exact --json shape, each member's cost and the team total, the leader's row from an
// agent lead's status file, --watch redrawing on a change until Ctrl-C, and a FIFO in the task list
// that must not hang it. In-process (main(argv, io)), but for --watch and the FIFO's deadline: the
// real executable.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes, newSession, setWindowOption, splitWindow } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { addMember, createTeam, readTeam, removeMember, updateMember, updateTeam } from '../../../src/team/index.js';
import { retireStatus } from '../../../src/team/spend.js';
import { swarm, swarmInProcess, startSwarm } from '../../support/cli.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { deadPid, startSleeper, writePendingFor, writeStatus } from '../../support/team-fixture.js';
import { useTempRoot, afterThisTest } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';
import { Team } from '../../../src/team/team.js';
import { TaskList } from '../../../src/tasks/index.js';

const TEAM = 't';
let root: string;

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: TEAM, cwd: '/work/project' });
});

async function member(name: string, patch: { pid?: number; tmuxPaneId?: string; backendType?: string; isActive?: boolean }): Promise<void> {
  await addMember(new Team(root, TEAM), { name, cwd: '/work/project' });
  await updateMember(new Team(root, TEAM), name, patch);
}

async function statusJson(env: Record<string, string> = {}): Promise<Record<string, unknown> & { members: Record<string, unknown>[] }> {
  const r = await swarmInProcess(root, ['status', '--team', TEAM, '--json'], env);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown> & { members: Record<string, unknown>[] };
}

const MEMBER_KEYS = [
  'name', 'agentId', 'backendType', 'host', 'paneId', 'pid', 'alive', 'state', 'heartbeatAt',
  'unread', 'pendingPermissions', 'resumeCommand', 'toolUses', 'inputTokens', 'outputTokens', 'costUsd', 'task', 'contextPercent', 'activities', 'hibernatingSince',
].sort();

describe('swarm status', () => {
  it('--json: live vs dead pids, stale heartbeat, unknown, unread and pending counts, exact shape', async () => {
    const livePid = await startSleeper();
    const stalePid = await startSleeper();
    const gonePid = await deadPid();
    const inProc = { backendType: 'in-process', tmuxPaneId: 'in-process', isActive: true };
    await member('alive', { ...inProc, pid: livePid });
    await member('ghost', { ...inProc, pid: gonePid });
    await member('sleepy', { ...inProc, pid: stalePid });
    await member('newbie', {});
    const hb = Date.now() - 1000;
    await writeStatus(root, TEAM, 'alive', {
      pid: livePid, heartbeatAt: hb, toolUses: 3, inputTokens: 1200, outputTokens: 345, costUsd: 0.0042,
      activities: [{ at: hb, text: 'Read src/a.ts' }, { at: hb, text: 'Bash: npm test' }],
    });
    await writeStatus(root, TEAM, 'ghost', { pid: gonePid, heartbeatAt: Date.now() });
    await writeStatus(root, TEAM, 'sleepy', { pid: stalePid, state: 'idle', heartbeatAt: Date.now() - 60_000 });

    const mailbox = new Mailbox({ team: new Team(root, TEAM) });
    await mailbox.append('alive', { from: 'team-lead', text: 'first' });
    await mailbox.consume('alive');
    await mailbox.append('alive', { from: 'team-lead', text: 'second' });
    await mailbox.append('alive', { from: 'ghost', text: 'third' });
    await mailbox.append('team-lead', { from: 'alive', text: 'done' });
    await writePendingFor(root, TEAM, 'alive');
    await writePendingFor(root, TEAM, 'alive');
    await writePendingFor(root, TEAM, 'ghost');

    const report = await statusJson();
    expect(Object.keys(report).sort()).toEqual(['backend', 'members', 'tasks', 'team', 'total']);
    for (const m of report.members) expect(Object.keys(m).sort()).toEqual(MEMBER_KEYS);
    const none = { host: null, heartbeatAt: null, toolUses: null, inputTokens: null, outputTokens: null, costUsd: null, task: null, resumeCommand: null, contextPercent: null, activities: [], hibernatingSince: null };
    expect(report).toEqual({
      team: TEAM,
      backend: 'in-process',
      tasks: { done: 0, total: 0 },
      members: [
        { name: 'team-lead', agentId: 'team-lead@t', backendType: null, paneId: null, pid: null, alive: null, state: 'away', unread: 1, pendingPermissions: 3, ...none },
        {
          name: 'alive', agentId: 'alive@t', backendType: 'in-process', host: null, paneId: 'in-process', pid: livePid, alive: true, state: 'working',
          heartbeatAt: hb, unread: 2, pendingPermissions: 2, toolUses: 3, inputTokens: 1200, outputTokens: 345, costUsd: 0.0042, task: null, resumeCommand: null,
          contextPercent: 1, activities: ['Read src/a.ts', 'Bash: npm test'], hibernatingSince: null, // 1,200 of a 200k window
        },
        {
          name: 'ghost', agentId: 'ghost@t', backendType: 'in-process', host: null, paneId: 'in-process', pid: gonePid, alive: false, state: 'stopped',
          heartbeatAt: expect.any(Number), unread: 0, pendingPermissions: 1, toolUses: 0, inputTokens: 0, outputTokens: 0, costUsd: null, task: null,
          resumeCommand: 'swarm resume ghost --team t', contextPercent: 0, activities: [], hibernatingSince: null,
        },
        {
          name: 'sleepy', agentId: 'sleepy@t', backendType: 'in-process', host: null, paneId: 'in-process', pid: stalePid, alive: true, state: 'stale',
          heartbeatAt: expect.any(Number), unread: 0, pendingPermissions: 0, toolUses: 0, inputTokens: 0, outputTokens: 0, costUsd: null, task: null, resumeCommand: null,
          contextPercent: 0, activities: [], hibernatingSince: null,
        },
        { name: 'newbie', agentId: 'newbie@t', backendType: null, paneId: null, pid: null, alive: null, state: 'unknown', unread: 0, pendingPermissions: 0, ...none },
      ],
      // ghost and sleepy have status files without a cost: unpriced; newbie has no file: not counted.
      total: { inputTokens: 1200, outputTokens: 345, costUsd: 0.0042, unpricedMembers: 2 },
    });
    // config.json was not touched: the stopped member is still recorded as active.
    expect((await readTeam(new Team(root, TEAM))).members.find((m) => m.name === 'ghost')?.isActive).toBe(true);

    const human = await swarmInProcess(root, ['status', '--team', TEAM]);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.split('\n');
    expect(lines[0]).toBe('team t  backend in-process · 4 teammates · tasks 0/0 done');
    expect(lines[1]).toMatch(/^MEMBER\s+BACKEND\s+PANE\s+PID\s+STATE\s+TASK\s+HEARTBEAT\s+UNREAD\s+PERMS\s+TOOLS\s+CTX\s+TOKENS in\/out\s+COST$/);
    expect(lines.find((l) => l.startsWith('alive '))).toMatch(new RegExp(`^alive\\s+in-process\\s+in-process\\s+${livePid} ✓\\s+working\\s+-\\s+\\d+s ago\\s+2\\s+2\\s+3\\s+1%\\s+1\\.2k/345\\s+\\$0\\.0042$`));
    // Each member's last activities, under the total.
    expect(lines.slice(lines.indexOf('recent'), lines.indexOf('recent') + 2)).toEqual(['recent', '  alive  Read src/a.ts · Bash: npm test']);
    expect(lines.find((l) => l.startsWith('ghost '))).toMatch(/\s0\/0\s+unpriced$/);
    expect(lines.find((l) => l.startsWith('newbie '))).toMatch(/\s-\s+-$/);
    expect(lines).toContain('total  tokens 1.2k/345 · $0.0042 + tokens of 2 unpriced members');
    expect(lines.find((l) => l.startsWith('ghost '))).toMatch(new RegExp(`${gonePid} ✗\\s+stopped\\s`));
    expect(lines.find((l) => l.startsWith('sleepy '))).toMatch(/\sstale\s+-\s+1m ago\s/);
    expect(human.stdout).toContain(
      'stopped: ghost (its process and pane are gone; inbox, tasks and conversation kept) — resume with: swarm resume ghost --team t; its 1 pending permission request is orphaned (see swarm permissions)',
    );
  });

  it('a member that went to sleep (hibernatedAt, process and pane gone) is hibernating with since when, not stopped', async () => {
    const gonePid = await deadPid();
    const since = Date.now() - 125_000;
    await member('dozy', { backendType: 'in-process', tmuxPaneId: 'in-process', isActive: false, pid: gonePid });
    await updateMember(new Team(root, TEAM), 'dozy', { hibernatedAt: since });
    await writeStatus(root, TEAM, 'dozy', { pid: gonePid, state: 'hibernating', heartbeatAt: since });
    const dozy = (await statusJson()).members.find((m) => m.name === 'dozy');
    expect(dozy).toMatchObject({ state: 'hibernating', hibernatingSince: since, alive: false, resumeCommand: null });
    const human = await swarmInProcess(root, ['status', '--team', TEAM]);
    expect(human.stdout.split('\n').find((l) => l.startsWith('dozy '))).toMatch(new RegExp(`${gonePid} ✗\\s+hibernating 2m\\s`));
    expect(human.stdout).not.toContain('stopped: dozy');
  });

  it("the leader's row from an agent lead's status file (its state while that pid lives), each cost, the team total", async () => {
    const leadPid = await startSleeper();
    const w1Pid = await startSleeper();
    const w2Pid = await startSleeper();
    const inProc = { backendType: 'in-process', tmuxPaneId: 'in-process', isActive: true };
    await member('w1', { ...inProc, pid: w1Pid });
    await member('w2', { ...inProc, pid: w2Pid });
    await member('w3', {});
    await writeStatus(root, TEAM, 'team-lead', { pid: leadPid, state: 'idle', toolUses: 9, inputTokens: 40_000, outputTokens: 6000, costUsd: 0.25 });
    await writeStatus(root, TEAM, 'w1', { pid: w1Pid, inputTokens: 20_000, outputTokens: 3000, costUsd: 0.5 });
    await writeStatus(root, TEAM, 'w2', { pid: w2Pid, inputTokens: 5000, outputTokens: 700 }); // a model without a list price

    const report = await statusJson();
    expect(report.members[0]).toMatchObject({
      name: 'team-lead', pid: leadPid, alive: true, state: 'idle', heartbeatAt: expect.any(Number), toolUses: 9, inputTokens: 40_000, outputTokens: 6000, costUsd: 0.25,
    });
    expect(report.members.slice(1).map((m) => [m.name, m.costUsd])).toEqual([['w1', 0.5], ['w2', null], ['w3', null]]);
    expect(report.total).toEqual({ inputTokens: 65_000, outputTokens: 9700, costUsd: 0.75, unpricedMembers: 1 });

    const human = await swarmInProcess(root, ['status', '--team', TEAM]);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('team-lead '))).toMatch(new RegExp(`^team-lead\\s+-\\s+-\\s+${leadPid} ✓\\s+idle\\s+-\\s+\\d+s ago\\s+0\\s+0\\s+9\\s+20%\\s+40k/6k\\s+\\$0\\.25$`));
    expect(lines.find((l) => l.startsWith('w1 '))).toMatch(/\s20k\/3k\s+\$0\.50$/);
    expect(lines.find((l) => l.startsWith('w2 '))).toMatch(/\s5k\/700\s+unpriced$/);
    expect(lines.find((l) => l.startsWith('w3 '))).toMatch(/\s-\s+-$/);
    expect(lines).toContain('total  tokens 65k/9.7k · $0.75 + tokens of 1 unpriced member');

    // The lead's process is gone: today's rule decides (away without a console, leading with one);
    // the tokens it spent stay in the row and the total.
    await writeStatus(root, TEAM, 'team-lead', { pid: await deadPid(), state: 'working', inputTokens: 40_000, outputTokens: 6000, costUsd: 0.25 });
    const gone = await statusJson();
    expect(gone.members[0]).toMatchObject({ state: 'away', alive: false, costUsd: 0.25 });
    expect(gone.total).toEqual({ inputTokens: 65_000, outputTokens: 9700, costUsd: 0.75, unpricedMembers: 1 });
    // w1 leaves as a shutdown does (its figures to spent.json, then off the roster): what it spent stays in the total.
    await retireStatus(new Team(root, TEAM), 'w1');
    await removeMember(new Team(root, TEAM), 'w1');
    expect((await statusJson()).total).toMatchObject({ costUsd: 0.75 });
    // A swarm lease nothing proves (no identity, last renewed long ago) naming a live pid: not leading.
    await updateTeam(new Team(root, TEAM), (c) => void (c.leadProcess = { pid: leadPid, claimedAt: 1, renewedAt: 1, kind: 'console' }));
    expect((await statusJson()).members[0]).toMatchObject({ state: 'away', alive: false });
    await updateTeam(new Team(root, TEAM), (c) => void (c.leadProcess = { pid: leadPid, claimedAt: Date.now() }));
    expect((await statusJson()).members[0]).toMatchObject({ pid: leadPid, alive: true, state: 'leading', costUsd: 0.25 });
  });

  it("each member's current task (its in_progress task) and the list's progress, in --json and the table", async () => {
    const livePid = await startSleeper();
    await member('alive', { backendType: 'in-process', tmuxPaneId: 'in-process', isActive: true, pid: livePid });
    await member('other', {});
    const tasks = new TaskList(new Team(root, TEAM));
    await tasks.create({ subject: 'Finished', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'alive');
    await tasks.update('1', { status: 'completed' }, 'alive');
    await tasks.create({ subject: 'Parse the arguments of every subcommand', description: 'x' }, 'team-lead');
    await tasks.claim('2', 'alive');
    await tasks.create({ subject: 'Assigned, not started', description: 'x', owner: 'other' }, 'team-lead');

    const report = await statusJson();
    expect(report.tasks).toEqual({ done: 1, total: 3 });
    expect(report.members.map((m) => [m.name, m.task])).toEqual([
      ['team-lead', null],
      ['alive', { id: '2', subject: 'Parse the arguments of every subcommand' }],
      ['other', null],
    ]);
    const human = await swarmInProcess(root, ['status', '--team', TEAM]);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.split('\n');
    expect(lines[0]).toBe('team t  backend in-process · 2 teammates · tasks 1/3 done');
    expect(lines.find((l) => l.startsWith('alive '))).toMatch(/\sworking\s+#2 Parse the arguments of every…\s/);
  });

  it('a tmux pane killed behind swarm\'s back (its process survives), and one whose process died (remain-on-exit), show as dead', async () => {
    const socket = tmuxForThisTest();
    const server = new TmuxServer({ socket });
    const leader = await newSession(server, { name: 'swarm-t', argv: ['sleep', '600'] });
    await setWindowOption(server, leader.windowId, 'remain-on-exit', 'on');
    const split = (argv = ['sleep', '600']): ReturnType<typeof splitWindow> => splitWindow(server, { target: leader.paneId, direction: 'h', argv });
    const keeper = await split();
    // The victim ignores SIGHUP, so it outlives its pane: only the pane check can tell it is gone.
    const victim = await split(['sh', '-c', 'trap "" HUP; exec sleep 600']);
    afterThisTest(async () => {
      // It outlives its pane on purpose, so reaping the server does not end it.
      if (!isProcessAlive(victim.pid)) return;
      process.kill(victim.pid, 'SIGKILL');
      await waitFor(() => !isProcessAlive(victim.pid), 5000, `stray ${victim.pid} gone`);
    });
    const exited = await split();
    for (const [name, pane] of [['keeper', keeper], ['victim', victim], ['exited', exited]] as const) {
      await member(name, { backendType: 'tmux', tmuxPaneId: pane.paneId, pid: pane.pid, isActive: true });
      await writeStatus(root, TEAM, name, { pid: pane.pid });
    }
    const env = { SWARM_TMUX_SOCKET: socket };
    const before = await statusJson(env);
    expect(before.backend).toBe('tmux');
    expect(before.members.slice(1).map((m) => [m.name, m.paneId, m.alive, m.state])).toEqual([
      ['keeper', keeper.paneId, true, 'working'],
      ['victim', victim.paneId, true, 'working'],
      ['exited', exited.paneId, true, 'working'],
    ]);

    await server.run(['kill-pane', '-t', victim.paneId]);
    process.kill(exited.pid, 'SIGKILL');
    await waitFor(async () => {
      const panes = await listAllPanes(server);
      return !panes.some((p) => p.paneId === victim.paneId) && panes.find((p) => p.paneId === exited.paneId)?.dead === true;
    }, 5000, 'victim pane gone and exited pane dead');
    expect(isProcessAlive(victim.pid)).toBe(true);

    const after = await statusJson(env);
    expect(after.members.slice(1).map((m) => [m.name, m.alive, m.state])).toEqual([
      ['keeper', true, 'working'],
      ['victim', false, 'dead'], // its pane is gone but its process lives: not resumable
      ['exited', false, 'stopped'],
    ]);
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members.filter((m) => m.isActive === true).map((m) => m.name)).toEqual(['keeper', 'victim', 'exited']);

    const human = await swarmInProcess(root, ['status', '--team', TEAM], env);
    expect(human.stdout).toMatch(new RegExp(`^victim\\s+tmux\\s+${victim.paneId} \\(gone\\)\\s.*\\sdead\\s`, 'm'));
    expect(human.stdout).toMatch(new RegExp(`^exited\\s+tmux\\s+${exited.paneId} \\(exited\\)\\s.*\\sstopped\\s`, 'm'));
  });

  it('--watch redraws when a status file changes and exits 0 on Ctrl-C', async () => {
    const pid = await startSleeper();
    await member('worker', { backendType: 'in-process', tmuxPaneId: 'in-process', pid, isActive: true });
    await writeStatus(root, TEAM, 'worker', { pid, state: 'working' });
    const { proc: child, output } = startSwarm(root, ['status', '--watch', '--team', TEAM]);
    // The last frame, once written completely (it ends with the footer).
    const lastFrame = (): string => {
      const frame = output().split('\x1b[H\x1b[2J').at(-1) ?? '';
      return frame.includes('Ctrl-C to quit') ? frame : '';
    };
    await waitFor(() => /^worker\s.*\sworking\s/m.test(lastFrame()), 10_000, 'a frame with worker working');
    expect(output().startsWith('\x1b[H\x1b[2J')).toBe(true);

    await writeStatus(root, TEAM, 'worker', { pid, state: 'waiting_permission' });
    await waitFor(() => /^worker\s.*\swaiting_permission\s/m.test(lastFrame()), 5000, 'a redraw with the new state');
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stderr)).toBe('');
  });

  it('a FIFO named like a task file: status returns at once, counts the other tasks, and names it in a warning', async () => {
    await new TaskList(new Team(root, TEAM)).create({ subject: 'Real', description: 'x' }, 'team-lead');
    const fifo = path.join(root, 'tasks', TEAM, '2.json');
    execFileSync('mkfifo', [fifo]); // no writer: a blocking open would hang status (and its SIGTERM handler) for good
    const r = await swarm(root, ['status', '--team', TEAM, '--json'], {}, { deadlineMs: 30_000 });
    expect(r.timedOut, 'swarm status hung on the FIFO').toBe(false);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { tasks: unknown }).tasks).toEqual({ done: 0, total: 1 });
    expect(r.stderr).toBe(`swarm: warning: ${fifo} is a FIFO (named pipe), not a regular file: skipped, never read; remove it (rm '${fifo}')`);
  });

  it('a team that does not exist: exit 1, one line', async () => {
    const r = await swarmInProcess(root, ['status', '--team', 'nope']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^swarm: no team "nope"/);
  });
});
