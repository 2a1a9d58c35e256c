// isProcessAlive, the liveness check every layer uses: not a pid, a live process, one that exited
// and was reaped, and a zombie (exited, never reaped: kill(pid, 0) still succeeds on it). Then the
// same check against a proc file system the test writes (isProcessAliveIn), for the paths this
// machine never takes: no /proc (macOS), a state X, a stat that cannot be read.
import { execa } from 'execa';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive, isProcessAliveIn } from '../../src/storage/pid.js';
import { deadPid } from '../support/team-fixture.js';
import { tempRoot } from '../support/tmp-root.js';
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
  /** A proc root with `self/stat` (so it is a /proc) and a stat file for each pid given its state. */
  async function fakeProc(states: Record<number, string>, withSelf = true): Promise<string> {
    const root = await tempRoot('swarm-fake-proc-');
    const stat = async (dir: string, state: string): Promise<void> => {
      await mkdir(path.join(root, dir), { recursive: true });
      // A process name may hold ") " itself: the state is the letter after the last ")".
      await writeFile(path.join(root, dir, 'stat'), `${dir} (odd) name) ${state} 1 1 1 0 -1\n`);
    };
    if (withSelf) await stat('self', 'R');
    for (const [pid, state] of Object.entries(states)) await stat(pid, state);
    return root;
  }

  it('reads the state after the last ")" of a process kill(0) reaches: Z and X are dead, the others alive', async () => {
    for (const [state, alive] of [['R', true], ['S', true], ['D', true], ['T', true], ['Z', false], ['X', false]] as const) {
      expect(isProcessAliveIn(await fakeProc({ [process.pid]: state }), process.pid), state).toBe(alive);
    }
  });

  it('asks kill(0) first: a pid it does not reach, or that is no process id, is dead whatever its stat says', async () => {
    const gone = await deadPid();
    // kill(0, 0) reaches this process group and kill(-1, 0) every process: only the guard says no.
    const proc = await fakeProc({ [gone]: 'S', 0: 'S', [-1]: 'S' });
    for (const pid of [gone, 0, -1]) expect(isProcessAliveIn(proc, pid), String(pid)).toBe(false);
  });

  it('with no /proc at all (macOS), a process kill(0) reaches is alive, zombie or not', async () => {
    expect(isProcessAliveIn(await fakeProc({}, false), process.pid)).toBe(true);
  });

  it('with a /proc, a process whose stat is gone has just exited; one whose stat cannot be read is alive', async () => {
    expect(isProcessAliveIn(await fakeProc({}), process.pid)).toBe(false);
    const proc = await fakeProc({});
    await mkdir(path.join(proc, String(process.pid), 'stat'), { recursive: true }); // EISDIR: not "gone"
    expect(isProcessAliveIn(proc, process.pid)).toBe(true);
  });
});
