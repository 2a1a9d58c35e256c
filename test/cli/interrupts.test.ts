// How a swarm command ends after an interrupt (cli/interrupts.ts), with a real child process
// (test/support/interrupt-child.mjs over dist/): a second signal during the cleanup is absorbed and
// the process then dies of the first; a write to a closed output failing while the process ends by
// a signal does not turn that death into an exit 141.
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait.js';

const CHILD = fileURLToPath(new URL('../support/interrupt-child.mjs', import.meta.url));

function start(mode: string) {
  const child = execa(process.execPath, [CHILD, mode], { stdin: 'pipe', reject: false, timeout: 20_000 });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return { child, out: () => out, err: () => err };
}

describe('ending by an interrupt', () => {
  it('more signals during the cleanup (the same again, another) are absorbed; once cleaned up, the process dies of the first', async () => {
    const c = start('cleanup');
    await waitFor(() => c.out().includes('ready'), 10_000, 'the child ready');
    c.child.kill('SIGHUP');
    await waitFor(() => c.out().includes('cleaning SIGHUP'), 10_000, 'the cleanup started');
    // The same again (a shell resends SIGHUP to its jobs) and another (a supervisor's), while the team is being stopped.
    c.child.kill('SIGHUP');
    c.child.kill('SIGTERM');
    c.child.stdin!.write('done\n');
    const r = await c.child;
    expect([r.signal, c.out()]).toEqual(['SIGHUP', 'ready\ncleaning SIGHUP\ncleaned\n']);
  });

  it('dies of the signal even when a write to its closed output fails on the way out', async () => {
    const c = start('late-epipe');
    await waitFor(() => c.err().includes('ready'), 10_000, 'the child ready');
    c.child.stdout!.destroy(); // its reader is gone: the next write fails with EPIPE
    c.child.stdin!.write('go\n');
    const r = await c.child;
    expect([r.signal, r.exitCode]).toEqual(['SIGTERM', undefined]);
  });
});
