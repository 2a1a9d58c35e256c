// `swarm tasks` on real files: concurrent adds get distinct ids and concurrent claims have exactly
// one winner (separate processes of the built executable, `npm run build` first), the refusals exit 1 with the reason,
// bad input exits 2 with nothing written, an owner set from the CLI gets a task_assignment frame
// signed as team-lead, `--status` is checked in one line (update, and the list's filter), and a FIFO
// named like a task file neither hangs the listing nor is read (a process with a deadline proves
// it). The rest runs in-process (main(argv, io)).
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseControl } from '../../../src/protocol/control.js';
import { InboxSchema } from '../../../src/protocol/message.js';
import { TaskSchema, type Task } from '../../../src/protocol/task.js';
import { TaskList } from '../../../src/tasks/index.js';
import { queueDirFor, withFileLock } from '../../../src/storage/lock.js';
import { addMember, createTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-tasks-');
beforeEach(async () => {
  await createTeam(root, { name: 'crew' });
  for (const name of ['alice', 'bob', ...Array.from({ length: 8 }, (_, i) => `w${i}`)]) await addMember(new Team(root, 'crew'), { name });
});

const run = (...args: string[]) => swarmInProcess(root, ['tasks', ...args, '--team', 'crew']);
/** The same as a separate process of the built executable: for the races between processes. */
const runChild = (...args: string[]) => swarm(root, ['tasks', ...args, '--team', 'crew']);
const dir = (): string => path.join(root, 'tasks/crew');

/**
 * Run `start` while this test holds the lock on `file`, and let go once `queued` of the processes it
 * started wait in the lock's line: they then race for it at once (process starts alone are seconds
 * apart on a loaded machine, and would never meet). Code that skips the lock never queues: red.
 */
async function underHeldLock<T>(file: string, queued: number, start: () => Promise<T>): Promise<T> {
  let started!: Promise<T>;
  await withFileLock(file, async () => {
    started = start();
    await waitFor(async () => (await readdir(queueDirFor(file)).catch(() => [])).length >= queued, 45_000, `${queued} processes waiting for ${path.basename(file)}`, 50);
  });
  return started;
}

async function tasksJson(): Promise<Task[]> {
  const r = await run('--json');
  expect(r.exitCode, r.stderr).toBe(0);
  return TaskSchema.array().parse(JSON.parse(r.stdout));
}

async function inboxFrames(name: string): Promise<unknown[]> {
  const raw = await readFile(path.join(root, 'teams/crew/inboxes', `${name}.json`), 'utf8').catch(() => '[]');
  return InboxSchema.parse(JSON.parse(raw)).map((m) => ({ ...parseControl(m.text), from: m.from, signed: m.lead_sig !== undefined }));
}

// The races start 8 and 4 processes, all waiting in the lock's line before it is let go; each start
// costs seconds on a loaded machine.
describe('swarm tasks', { timeout: 60_000 }, () => {
  it('8 concurrent adds (separate processes) get 8 distinct ids, 1..8', async () => {
    await mkdir(dir(), { recursive: true });
    const results = await underHeldLock(path.join(dir(), '.lock'), 8, () => Promise.all(Array.from({ length: 8 }, (_, i) => runChild('add', `task ${i}`))));
    for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
    const ids = results.map((r) => r.stdout.trim());
    expect(new Set(ids).size).toBe(8);
    expect(ids.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 8 }, (_, i) => i + 1));
    expect((await tasksJson()).map((t) => t.id)).toEqual(Array.from({ length: 8 }, (_, i) => String(i + 1)));
  }, 90_000);

  it('4 concurrent claims of one task: exactly one winner, 3 exit 1 with already_claimed', async () => {
    expect((await run('add', 'the one')).stdout.trim()).toBe('1');
    const results = await underHeldLock(path.join(dir(), '1.json'), 4, () => Promise.all(Array.from({ length: 4 }, (_, i) => runChild('claim', '1', '--owner', `w${i}`))));
    const won = results.filter((r) => r.exitCode === 0);
    const lost = results.filter((r) => r.exitCode === 1);
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(3);
    const winner = /^(w\d) claimed task 1/.exec(won[0]!.stdout)![1]!;
    for (const r of lost) expect(r.stderr).toBe(`swarm: task 1 is already claimed by ${winner}; pick another task (swarm tasks list)`);
    expect((await tasksJson())[0]).toMatchObject({ owner: winner, status: 'in_progress' });
  }, 90_000);

  it('blocked and completed claims exit 1 with the reason; allowed once the blocker completes', async () => {
    await run('add', 'design');
    expect((await run('add', 'build', '--blocked-by', '1')).stdout.trim()).toBe('2');
    const blocked = await run('claim', '2', '--owner', 'bob');
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stderr).toBe('swarm: task 2 is blocked by task 1 "design" (pending); claim it once that is completed');
    expect((await run('claim', '1', '--owner', 'alice')).exitCode).toBe(0);
    expect((await run('update', '1', '--status', 'completed')).exitCode).toBe(0);
    const done = await run('claim', '1', '--owner', 'alice');
    expect(done.exitCode).toBe(1);
    expect(done.stderr).toMatch(/^swarm: task 1 is already completed/);
    const ok = await run('claim', '2', '--owner', 'bob', '--json');
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(TaskSchema.parse(JSON.parse(ok.stdout))).toMatchObject({ id: '2', owner: 'bob', status: 'in_progress', blockedBy: ['1'] });
  });

  it('bad input exits 2 and writes nothing: a cycle, an unknown blocker, an unknown task, a bad id, a non-member owner', async () => {
    await run('add', 'a');
    await run('add', 'b', '--blocked-by', '1');
    const before = await Promise.all((await readdir(dir())).filter((n) => n.endsWith('.json')).sort().map((n) => readFile(path.join(dir(), n), 'utf8')));
    const cases: [string[], RegExp][] = [
      [['update', '1', '--add-blocked-by', '2'], /^swarm: task 2 cannot block task 1: that would make a cycle \(2 → 1 → 2\); nothing was changed$/],
      [['add', 'c', '--blocked-by', '7'], /^swarm: no task 7 to depend on/],
      [['update', '9', '--status', 'completed'], /^swarm: no task 9 /],
      [['show', 'abc'], /^swarm: invalid task id "abc"/],
      [['claim', '1', '--owner', 'zed'], /^swarm: --owner: no member "zed" in team "crew"/],
      [['update', '1', '--status', 'done'], /^swarm: --status "done": expected pending, in_progress, completed or deleted \(e\.g\. swarm tasks update 3 --status completed\)$/],
      [['--status', 'bogus'], /^swarm: --status "bogus": expected pending, in_progress or completed \(e\.g\. swarm tasks --status pending\)$/],
    ];
    const results = await Promise.all(cases.map(([args]) => run(...args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(message)]);
    }
    const after = await Promise.all((await readdir(dir())).filter((n) => n.endsWith('.json')).sort().map((n) => readFile(path.join(dir(), n), 'utf8')));
    expect(after).toEqual(before);
  }, 60_000);

  it("the table shows id, status, owner, subject, open blockers, and the progress; Claude Code's internal tasks only in --json", async () => {
    await run('add', 'design', '--owner', 'alice');
    await run('add', 'build', '--blocked-by', '1');
    await run('add', 'ship', '--blocked-by', '1,2');
    await run('update', '1', '--status', 'completed');
    await new TaskList(new Team(root, 'crew')).create({ subject: 'bookkeeping', description: '', metadata: { _internal: true } }, 'team-lead');
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      'ID  STATUS     OWNER  SUBJECT  BLOCKED BY',
      '1   completed  alice  design   -',
      '2   pending    -      build    -',
      '3   pending    -      ship     2',
      '1/3 done',
      '1 internal task of Claude Code not shown (swarm tasks --json has them)',
    ]);
    expect((await tasksJson()).map((t) => t.id)).toEqual(['1', '2', '3', '4']);
  });

  it('a task blocked after it was claimed says so in the table, and its owner is told', async () => {
    await run('add', 'build');
    await run('add', 'design');
    expect((await run('claim', '1', '--owner', 'bob')).exitCode).toBe(0);
    const blocked = await run('update', '1', '--add-blocked-by', '2');
    expect(blocked.exitCode, blocked.stderr).toBe(0);
    expect((await run()).stdout.split('\n').slice(0, 3)).toEqual([
      'ID  STATUS                OWNER  SUBJECT  BLOCKED BY',
      '1   in_progress, blocked  bob    build    2',
      '2   pending               -      design   -',
    ]);
    const frames = await inboxFrames('bob');
    expect(frames.at(-1)).toMatchObject({
      kind: 'text',
      from: 'team-lead',
      text: 'task #1 "build" (yours, in progress) is now blocked by task 2 "design" (pending): it stays yours; go on with it once that is completed',
    });
  });

  it('an owner set by the CLI (any case) gets a task_assignment frame signed as team-lead; a deleted id is never reused', async () => {
    expect(TaskSchema.parse(JSON.parse((await run('add', 'design', '--owner', 'ALICE', '-d', 'the API', '--json')).stdout)).owner).toBe('alice'); // the roster's spelling
    await run('update', '1', '--owner', 'bob');
    expect(await inboxFrames('alice')).toEqual([
      expect.objectContaining({ kind: 'control', from: 'team-lead', signed: true, message: expect.objectContaining({ type: 'task_assignment', taskId: '1', subject: 'design', description: 'the API', assignedBy: 'team-lead' }) as unknown }),
    ]);
    expect(await inboxFrames('bob')).toHaveLength(1);
    const shown = await swarmInProcess(root, ['inbox', 'alice', '--team', 'crew']);
    expect(shown.stdout).toMatch(/team-lead assigned task #1: design$/m);
    const del = await run('update', '1', '--status', 'deleted', '--json');
    expect(JSON.parse(del.stdout)).toEqual({ id: '1', deleted: true });
    expect((await run('add', 'again')).stdout.trim()).toBe('2');
    expect(await readFile(path.join(dir(), '.highwatermark'), 'utf8')).toBe('1');
  });

  it('--status filters the table and --json; the progress stays the whole list\'s', async () => {
    await run('add', 'design', '--owner', 'alice');
    await run('add', 'build');
    await run('update', '1', '--status', 'completed');
    const r = await run('--status', 'pending');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toEqual(['ID  STATUS   OWNER  SUBJECT  BLOCKED BY', '2   pending  -      build    -', '1/2 done']);
    expect((await run('list', '--status', 'completed', '--json')).stdout).toMatch(/^\[\n {2}\{\n {4}"id": "1",/);
    expect((await run('--status', 'in_progress')).stdout.split('\n')).toEqual(['no tasks with that status', '1/2 done']);
  });

  it('a FIFO named like a task file: the listing returns at once, names it on stderr, and lists the rest', async () => {
    await run('add', 'real');
    const fifo = path.join(dir(), '2.json');
    execFileSync('mkfifo', [fifo]); // no writer: a blocking open would hang the process (and its SIGTERM handler) for good
    const r = await swarm(root, ['tasks', '--team', 'crew'], {}, { deadlineMs: 30_000 });
    expect(r.timedOut, 'swarm tasks hung on the FIFO').toBe(false);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(`swarm: warning: ${fifo} is a FIFO (named pipe), not a regular file: skipped, never read; remove it (rm '${fifo}')`);
    expect(r.stdout.split('\n')).toEqual(['ID  STATUS   OWNER  SUBJECT  BLOCKED BY', '1   pending  -      real     -', '0/1 done']);
    expect((await run('add', 'next')).stdout.trim()).toBe('3');
  });
});
