// isProcessAlive, the liveness check every layer uses: not a pid, a live process, one that exited
// and was reaped, and a zombie (exited, never reaped: kill(pid, 0) still succeeds on it).
import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/storage/pid.js';
import { waitFor } from '../support/wait.js';

describe('isProcessAlive', () => {
  it('is false for what cannot be a process id', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessAlive(pid), String(pid)).toBe(false);
  });

  it('is true for this process and false for one that exited and was reaped', async () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    const gone = Number((await execa(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])).stdout);
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
