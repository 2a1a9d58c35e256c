// Hibernation (docs/hibernation.md), on a private tmux server and the
// stand-in Messages API: a swarm teammate idle past its --hibernate-after exits as `hibernating`
// (status says so and since when, doctor finds nothing wrong, its pane says one line); 50 messages
// appended at once by 10 processes wake it (the leader's waker) through the resume path (same
// name, conversation restored), never two copies at once, and each is delivered exactly once; it
// sleeps again; a shutdown removes it without waking it. A teammate owing something (a task in progress) does not sleep. A wake killed halfway
// is resumed again and still delivers once. Whoever leads wakes a sleeper for an entry written
// straight into its inbox (as Claude Code writes them) and closes the pane it left. The teammates and
// the waking `swarm send` are processes of the built executable (run `npm run build` first); spawn
// and resume run in-process through main(argv, io).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { HibernationWaker } from '../../../src/cli/hibernation-waker.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { TaskList } from '../../../src/tasks/index.js';
import { readTeam, updateMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { collectStatus } from '../../../src/teammates/status-report.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { useStandinTeam } from '../../support/standin-team.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'hb';
const APPEND = path.resolve(import.meta.dirname, '../../support/append-worker.mjs');

const t = useStandinTeam(TEAM, 'swarm-hibernate-');
const pids = t.pids;
let root: string;
let work: string;
let socket: string;
beforeEach(() => {
  ({ root, work, socket } = t);
});

const team = (): Team => new Team(root, TEAM);

async function stateOf(env: Record<string, string>, name: string): Promise<{ state: string; pid: number | null; hibernatingSince: number | null } | undefined> {
  const { report } = await collectStatus(team(), { env });
  return report.members.find((m) => m.name === name);
}

/** The transcript's lines of one kind. */
async function logLines(name: string, kind: string): Promise<Record<string, unknown>[]> {
  const raw = await fs.readFile(path.join(root, 'teams', TEAM, 'logs', `${name}.jsonl`), 'utf8').catch(() => '');
  return raw
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.kind === kind);
}

/** How many times `token` was delivered to `name` as a user turn (its transcript's user lines). */
async function deliveries(name: string, token: string): Promise<number> {
  const exact = new RegExp(`(?<![\\w-])${token.replace(/[-]/g, '\\-')}(?![\\w-])`, 'g');
  const text = (u: Record<string, unknown>): string => (u.content as { text?: string }[]).map((b) => b.text ?? '').join('\n');
  return (await logLines(name, 'user')).reduce((n, u) => n + (text(u).match(exact)?.length ?? 0), 0);
}

/**
 * The env of a process leading the team, as the test's waker runs: `env` and the team's root. A
 * teammate it wakes gets CLAUDE_CONFIG_DIR from it, not from whatever env started the tmux server.
 */
const leaderEnv = (env: Record<string, string>): Record<string, string> => ({ ...env, CLAUDE_CONFIG_DIR: root });

async function spawnSleeper(env: Record<string, string>, name: string, after = '1s'): Promise<{ pid: number; paneId: string }> {
  const spawned = await swarmInProcess(root, ['spawn', name, '-p', `start ${name}`, '--backend', 'tmux', '--cwd', work, '--hibernate-after', after, '--json'], env);
  expect(spawned.exitCode, spawned.stderr).toBe(0);
  const first = JSON.parse(spawned.stdout) as { pid: number; paneId: string };
  pids.add(first.pid);
  return first;
}

describe('hibernation', () => {
  it('idle past --hibernate-after it sleeps; 50 messages from 10 processes wake it and each is delivered once; a shutdown removes it asleep', async () => {
    const standin = await t.serve({ script: { turns: [{ match: { agent: 'w1', lastUser: 'start w1' }, reply: 'BEFORE-SLEEP: ready.' }], exhaustedReply: 'noted.' } });
    const env = t.env(standin);
    const first = await spawnSleeper(env, 'w1', '500ms');
    expect((await readTeam(team())).members[1]).toMatchObject({ name: 'w1', hibernateAfterMs: 500 });
    await waitFor(async () => (await stateOf(env, 'w1'))?.state === 'hibernating', 20_000, 'w1 to hibernate');
    await waitFor(() => !isProcessAlive(first.pid), 5_000, 'its process to exit');
    const asleep = (await stateOf(env, 'w1'))!;
    expect(asleep.hibernatingSince).toBeGreaterThan(Date.now() - 20_000);
    expect((await readTeam(team())).members[1]).toMatchObject({ isActive: false, hibernatedAt: asleep.hibernatingSince });
    // One line in its pane (tmux keeps the exited pane until someone closes it).
    const pane = await execa('tmux', ['-L', socket, 'capture-pane', '-p', '-J', '-t', first.paneId], { reject: false });
    expect(pane.stdout).toMatch(/hibernating: idle \S+ with nothing to do; its conversation is kept and its next message wakes it/);
    const table = await swarmInProcess(root, ['status'], env);
    expect(table.stdout).toMatch(/w1 .* hibernating \d+s/);
    expect(table.stdout).not.toContain('stopped: w1');
    const doctor = await swarmInProcess(root, ['doctor', '--json'], env);
    expect(doctor.stdout.replaceAll(root, '<root>')).not.toContain('w1'); // the temp root's random name may hold "w1" itself

    // Awake, it stays up a little longer (read at its next idle spell), so the burst finds it mostly awake.
    await updateMember(team(), 'w1', { hibernateAfterMs: 3000 });
    const lines: string[] = [];
    const waker = await HibernationWaker.start({ team: team(), backends: () => ({ env: leaderEnv(env) }), say: (l) => lines.push(l), pollMs: 250 });
    try {
      // 10 processes at once, 5 messages each, straight into its inbox (as any sender's appends).
      const senders = Array.from({ length: 10 }, (_, p) => execa(process.execPath, [APPEND, root, TEAM, 'w1', `p${p}`, '5'], { reject: false }));
      for (const s of await Promise.all(senders)) expect(s.exitCode, s.stderr).toBe(0);
      const tokens = Array.from({ length: 50 }, (_, k) => `p${Math.floor(k / 5)}:${k % 5}`);
      await waitFor(async () => (await Promise.all(tokens.map((t) => deliveries('w1', t)))).every((n) => n >= 1), 30_000, 'all 50 messages delivered');
      for (const t of tokens) expect(await deliveries('w1', t), t).toBe(1);
      expect(lines.some((l) => l.startsWith('waking w1 (hibernating): a message for it'))).toBe(true);
    } finally {
      await waker.close();
    }
    // Woken through the resume path, never two copies at once: each start (after the first) is a
    // resume, and starts and exits alternate.
    const raw = await fs.readFile(path.join(root, 'teams', TEAM, 'logs', 'w1.jsonl'), 'utf8');
    const life = raw.split('\n').filter((l) => l.trim() !== '').map((l) => (JSON.parse(l) as { kind: string }).kind).filter((k) => k === 'start' || k === 'exit');
    expect(life.length).toBeGreaterThanOrEqual(3);
    life.forEach((k, i) => expect(k, `line ${i} of ${life.join(',')}`).toBe(i % 2 === 0 ? 'start' : 'exit'));
    const starts = life.filter((k) => k === 'start').length;
    expect(await logLines('w1', 'resume')).toHaveLength(starts - 1);
    const after = standin.requests.filter((r) => r.agent === 'w1' && r.body !== undefined)[1]!.body!;
    expect(JSON.stringify(after.messages)).toContain('BEFORE-SLEEP: ready.');
    const awake = (await stateOf(env, 'w1'))!;
    if (awake.pid !== null) pids.add(awake.pid);

    // Asleep again; then a shutdown removes it without another start.
    await waitFor(async () => (await stateOf(env, 'w1'))?.state === 'hibernating', 20_000, 'w1 to hibernate again');
    const stopped = await swarmInProcess(root, ['shutdown', 'w1'], env);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(stopped.stdout + stopped.stderr).toContain('w1: it was hibernating, and was not woken; leftover pane closed, removed from the team');
    expect((await readTeam(team())).members.map((m) => m.name)).toEqual(['team-lead']);
    expect(await logLines('w1', 'start')).toHaveLength(starts); // not woken by the shutdown
  }, 120_000);

  it('a teammate owing something (a task in progress) stays awake; a wake killed halfway is resumed again and delivers once; a leader wakes a sleeper for an entry written into its inbox and closes its exited pane', async () => {
    const standin = await t.serve({
      script: {
        turns: [
          { match: { agent: 'w2', lastUser: 'start w2' }, reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'in_progress', owner: 'w2' } }] } },
          { match: { agent: 'w2', toolResult: 'TaskUpdate' }, reply: 'working on #1, more later.' },
        ],
        exhaustedReply: 'noted.',
      },
    });
    const env = t.env(standin);
    const tasks = new TaskList(team());
    await tasks.create({ subject: 'Long job', description: 'x' }, 'team-lead');
    const w2 = await spawnSleeper(env, 'w2', '500ms');
    await waitFor(async () => (await logLines('w2', 'hibernate_deferred')).length > 0, 20_000, 'w2 due, but owing its task');
    expect(await logLines('w2', 'hibernate_deferred')).toMatchObject([{ why: 'task #1 is in progress' }]);
    expect(isProcessAlive(w2.pid)).toBe(true);
    await tasks.update('1', { status: 'completed' }, 'team-lead');
    await waitFor(async () => (await stateOf(env, 'w2'))?.state === 'hibernating', 20_000, 'w2 to hibernate once its task is done');

    // A wake killed halfway: SIGKILL the new process as soon as it is recorded.
    const sending = swarm(root, ['send', 'w2', 'k-1'], env);
    let killed: number | undefined;
    await waitFor(
      async () => {
        const pid = (await readTeam(team())).members[1]?.pid;
        if (pid === undefined || pid === w2.pid || !isProcessAlive(pid)) return false;
        process.kill(pid, 'SIGKILL');
        killed = pid;
        return true;
      },
      20_000,
      'the woken process to appear',
      25,
    );
    await sending;
    await waitFor(() => !isProcessAlive(killed!), 5_000, 'the killed wake to be gone');
    const again = await swarmInProcess(root, ['resume', 'w2'], env);
    expect(again.exitCode, again.stderr).toBe(0);
    await waitFor(async () => (await deliveries('w2', 'k-1')) >= 1, 20_000, 'k-1 delivered after the second resume');
    expect(await deliveries('w2', 'k-1')).toBe(1);

    // Asleep again, then an entry written straight into its inbox: the leader's waker wakes it and closes the exited pane.
    await waitFor(async () => (await stateOf(env, 'w2'))?.state === 'hibernating', 20_000, 'w2 to hibernate again');
    const lines: string[] = [];
    const waker = await HibernationWaker.start({ team: team(), backends: () => ({ env: leaderEnv(env) }), say: (l) => lines.push(l), pollMs: 250 });
    try {
      const asleepPane = (await readTeam(team())).members[1]!.tmuxPaneId;
      await waitFor(async () => !(await listAllPanes(new TmuxServer({ socket }))).some((p) => p.paneId === asleepPane), 10_000, 'its exited pane closed');
      await new Mailbox({ team: team() }).append('w2', { from: 'team-lead', text: 'k-2 written by hand' });
      await waitFor(async () => (await deliveries('w2', 'k-2 written by hand')) >= 1, 20_000, 'k-2 delivered');
      expect(lines.some((l) => l.startsWith('waking w2 (hibernating): a message for it'))).toBe(true);
      expect(await deliveries('w2', 'k-2 written by hand')).toBe(1);
      const now = (await stateOf(env, 'w2'))!;
      if (now.pid !== null) pids.add(now.pid);
    } finally {
      await waker.close();
    }
  }, 120_000);
});
