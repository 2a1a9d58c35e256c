// Child processes a test starts (execa): `endAfterThisTest` ends one still running when the test
// finishes (after its afterEach hooks) and waits for its exit, so no test leaves a process behind,
// even one that failed halfway. SIGKILL by default: it ends a stopped (SIGSTOP) process too.
import type { ResultPromise } from 'execa';
import { afterThisTest } from './tmp-root.js';

/** Registers the end of `child` for when the current test finishes. */
export function endAfterThisTest(child: ResultPromise, signal: NodeJS.Signals = 'SIGKILL'): void {
  afterThisTest(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await child.catch(() => undefined);
  });
}
