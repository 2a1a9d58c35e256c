// isProcessAlive, the liveness check every layer uses: not a pid, a live process, one that exited
// and was reaped, and a zombie (exited, never reaped: kill(pid, 0) still succeeds on it). Then the
// same check against a proc file system the test writes (isProcessAliveIn), for the paths this
// machine never takes: no /proc (macOS), a state X, a stat that cannot be read, one whose process
// was reaped between the open and the read. Last, which process
// a pid is (processIdentityIn, what the leader lease records): real processes, then a fake /proc.
import { execa } from 'execa';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, isProcessAliveIn, processIdentityIn, processStartedAtIn } from '../../src/storage/pid.js';
import { fakeProc } from '../support/fake-proc.js';
import { deadPid, startSleeper } from '../support/team-fixture.js';
import { waitFor } from '../support/wait.js';

describe('isProcessAlive', () => {
  it('is false for what cannot be a process id', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessAlive(pid), String(pid)).toBe(false);
  });

  it('is true for this process and false for one that exited and was reaped', async () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const gone = await deadPid();
    expect(isProcessAlive(gone)).toBe(false);
  });

  it('is false for a zombie, and true for its living parent', async () => {
    // perl forks a child that exits at once and never waits for it (SIGCHLD left at its default),
    // so the child stays a zombie for as long as perl sleeps. (A shell that forks and then execs
    // `sleep` raced: on a loaded CI machine the shell reaped the child before its exec.)
    const script = 'my $c = fork() // die "fork: $!"; exit 0 if $c == 0; $| = 1; print "$c\\n"; sleep 30';
    const parent = execa('perl', ['-e', script], { buffer: false });
    try {
      const zombie = await new Promise<number>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
      await waitFor(async () => /\) Z /.test(await readFile(`/proc/${zombie}/stat`, 'utf8').catch(() => '')), 5000, 'the child is a zombie');
      expect(isProcessAlive(zombie)).toBe(false);
      expect(isProcessAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
      await parent.catch(() => undefined);
    }
  });
});

describe('isProcessAliveIn (a proc file system of the test\'s own)', () => {
  it('reads the state after the last ")" of a process kill(0) reaches: Z and X are dead, the others alive', async () => {
    for (const [state, alive] of [['R', true], ['S', true], ['D', true], ['T', true], ['Z', false], ['X', false]] as const) {
      expect(isProcessAliveIn(await fakeProc({ [process.pid]: { state } }), process.pid), state).toBe(alive);
    }
  });

  it('asks kill(0) first: a pid it does not reach, or that is no process id, is dead whatever its stat says', async () => {
    const gone = await deadPid();
    // kill(0, 0) reaches this process group and kill(-1, 0) every process: only the guard says no.
    const proc = await fakeProc({ [gone]: { state: 'S' }, 0: { state: 'S' }, [-1]: { state: 'S' } });
    for (const pid of [gone, 0, -1]) expect(isProcessAliveIn(proc, pid), String(pid)).toBe(false);
  });

  it('with no /proc at all (macOS), a process kill(0) reaches is alive, zombie or not', async () => {
    expect(isProcessAliveIn(await fakeProc({}, { self: false }), process.pid)).toBe(true);
  });

  it('with a /proc, a process whose stat is gone has just exited; one whose stat cannot be read is alive', async () => {
    expect(isProcessAliveIn(await fakeProc({}), process.pid)).toBe(false);
    const proc = await fakeProc({});
    await mkdir(path.join(proc, String(process.pid), 'stat'), { recursive: true }); // EISDIR: not "gone"
    expect(isProcessAliveIn(proc, process.pid)).toBe(true);
  });

  it('a process reaped between the open of its stat and the read (ESRCH) has exited', async () => {
    // A real ESRCH: the stat of a child opened while it ran, read through /proc/self/fd after it was
    // reaped. (A kill that had just verified the process gone saw it "alive" here in CI.)
    const child = execa('sleep', ['30']);
    const fd = openSync(`/proc/${child.pid!}/stat`, 'r');
    try {
      child.kill('SIGKILL');
      await child.catch(() => undefined);
      const proc = await fakeProc({});
      await mkdir(path.join(proc, String(process.pid)));
      await symlink(`/proc/self/fd/${fd}`, path.join(proc, String(process.pid), 'stat'));
      expect(() => readFileSync(path.join(proc, String(process.pid), 'stat'))).toThrow(expect.objectContaining({ code: 'ESRCH' }));
      expect(isProcessAliveIn(proc, process.pid)).toBe(false);
    } finally {
      closeSync(fd);
    }
  });
});

describe('processIdentityIn: which process a pid is', () => {
  it('is the same on every read of a live process, and another for another process; none for one that exited', async () => {
    const me = processIdentityIn('/proc', process.pid);
    expect(me).toEqual({ bootId: expect.stringMatching(/^[0-9a-f-]{36}$/), startTicks: expect.any(Number), cmd: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(processIdentityIn('/proc', process.pid)).toEqual(me);
    const other = processIdentityIn('/proc', await startSleeper());
    expect(other?.bootId).toBe(me?.bootId);
    expect(other?.startTicks).not.toBe(me?.startTicks); // started just now; this test process earlier
    expect(other?.cmd).not.toBe(me?.cmd);
    expect(processIdentityIn('/proc', await deadPid())).toBeUndefined();
  });

  it('reads the boot id, field 22 after the last ")" and a digest of the command line (fake /proc)', async () => {
    const proc = await fakeProc({ 41: { startTicks: 777, cmdline: ['node', '/opt/swarm/bin/swarm.js', 'lead'] }, 42: { startTicks: 777, cmdline: ['sleep', '600'] } }, { bootId: 'boot-a' });
    const a = processIdentityIn(proc, 41);
    expect(a).toMatchObject({ bootId: 'boot-a', startTicks: 777 });
    expect(processIdentityIn(proc, 42)).toEqual({ ...a, cmd: expect.not.stringMatching(`^${a?.cmd}$`) });
  });

  it('is none without /proc (macOS), without a boot id, or from a stat line cut short', async () => {
    expect(processIdentityIn(await fakeProc({ 41: { cmdline: ['x'] } }, { self: false }), 41)).toBeUndefined();
    expect(processIdentityIn(await fakeProc({ 41: { cmdline: ['x'] } }), 41)).toBeUndefined(); // no boot_id
    const proc = await fakeProc({ 41: { cmdline: ['x'] } }, { bootId: 'boot-a' });
    expect(processIdentityIn(proc, 41)).toBeDefined();
    await writeFile(path.join(proc, '41', 'stat'), '41 (x) S 1 1 1\n');
    expect(processIdentityIn(proc, 41)).toBeUndefined();
  });
});

describe('processStartedAtIn: when a process started', () => {
  it('its start time in clock ticks since boot against the uptime (fake /proc); none when either cannot be read', async () => {
    const proc = await fakeProc({ 41: { startTicks: 50_000, cmdline: ['x'] } });
    await writeFile(path.join(proc, 'uptime'), '1000.50 1900.00\n');
    expect(processStartedAtIn(proc, 41, 2_000_000)).toBe(2_000_000 - (1_000_500 - 500_000));
    expect(processStartedAtIn(proc, 42, 2_000_000)).toBeUndefined(); // no such process
    await writeFile(path.join(proc, 'uptime'), 'garbage\n');
    expect(processStartedAtIn(proc, 41, 2_000_000)).toBeUndefined();
  });

  it('on this machine: a child started just now, this process a while ago', async () => {
    const before = Date.now();
    const pid = await startSleeper();
    const started = processStartedAtIn('/proc', pid)!;
    expect(Math.abs(started - before)).toBeLessThan(1000);
    expect(processStartedAtIn('/proc', process.pid)!).toBeLessThanOrEqual(before);
  });
});

