// Processes a test run left behind. Every process the suite starts carries SWARM_TEST_RUN=<the
// vitest process's pid> in its environment (vitest.config.ts gives it to the workers, and children
// inherit it), so one still running when the run ends is one that a test failed to end. The summary
// reporter waits a moment for such processes to go, then kills them and fails the run.
import { readdirSync, readFileSync } from 'node:fs';

export interface Leftover {
  pid: number;
  command: string;
}

/** The environment variable, and its value for this run, that marks a process the suite started. */
export const RUN_MARK = 'SWARM_TEST_RUN';

/**
 * Live processes whose environment carries `RUN_MARK=run` (zombies have none: they are dead). None
 * where there is no /proc to look in (macOS): the check is Linux's, as CI is.
 */
export function processesOfRun(run: string, proc = '/proc'): Leftover[] {
  const mark = `${RUN_MARK}=${run}`;
  const found: Leftover[] = [];
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`${proc}/${entry}/environ`, 'latin1').split('\0').includes(mark)) continue;
      const command = readFileSync(`${proc}/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(entry), command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Waits up to `graceMs` for the run's processes to exit on their own, then SIGKILLs the ones still
 * there and returns them (none: the run left nothing behind).
 */
export async function endLeftovers(run: string, graceMs: number, proc = '/proc'): Promise<Leftover[]> {
  const deadline = Date.now() + graceMs;
  let left = processesOfRun(run, proc);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesOfRun(run, proc);
  }
  for (const p of left) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  return left;
}
