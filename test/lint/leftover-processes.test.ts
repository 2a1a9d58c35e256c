// The run's check for processes its tests left behind (test/support/leftover-processes.ts): it
// finds a process by the run's mark alone, waits for one that is exiting, and kills one that is not.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { endLeftovers, processesOfRun, RUN_MARK } from '../support/leftover-processes.js';
import { afterThisTest } from '../support/tmp-root.js';

/** A child with `RUN_MARK=run` in its environment, SIGKILLed when the test ends if still there. */
async function marked(run: string, argv: string[]): Promise<number> {
  const child = spawn(argv[0]!, argv.slice(1), { stdio: 'ignore', env: { ...process.env, [RUN_MARK]: run } });
  afterThisTest(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await once(child, 'spawn');
  return child.pid!;
}

describe('processes a run left behind', () => {
  it('are found by the run mark alone, and a different run is not', async () => {
    const run = randomUUID();
    const mine = await marked(run, ['sleep', '30']);
    await marked(randomUUID(), ['sleep', '30']);
    expect(processesOfRun(run)).toEqual([{ pid: mine, command: 'sleep 30' }]);
  });

  it('one still running after the grace period is killed and reported; one exiting within it is not', async () => {
    const run = randomUUID();
    const stuck = await marked(run, ['sleep', '30']);
    await marked(run, ['sleep', '0.3']);
    const left = await endLeftovers(run, 1_000);
    expect(left).toEqual([{ pid: stuck, command: 'sleep 30' }]);
    await expect.poll(() => processesOfRun(run)).toEqual([]);
  });
});
