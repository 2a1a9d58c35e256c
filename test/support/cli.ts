// Run the real, built `swarm` executable (bin/swarm.js -> dist/) as a child process.
import { execa, type Result, type ResultPromise } from 'execa';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { endAfterThisTest } from './children.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SWARM_BIN = path.join(REPO, 'bin/swarm.js');

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** True when it was still running at `deadlineMs` and was SIGKILLed (a hang: SIGTERM may never be handled). */
  timedOut?: boolean;
}

/**
 * `swarm ...args` with CLAUDE_CONFIG_DIR=root; never throws on a non-zero exit. With `deadlineMs`, a
 * process still running then is killed (SIGKILL) and reported `timedOut`, for tests of a hang.
 */
export async function swarm(root: string, args: string[], env: Record<string, string> = {}, opts: { deadlineMs?: number } = {}): Promise<CliResult> {
  const r: Result = await execa(process.execPath, [SWARM_BIN, ...args], {
    env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env },
    reject: false,
    stdin: 'ignore',
    ...(opts.deadlineMs !== undefined ? { timeout: opts.deadlineMs, killSignal: 'SIGKILL' as const } : {}),
  });
  return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode ?? -1, timedOut: r.timedOut };
}

/**
 * `swarm ...args` with CLAUDE_CONFIG_DIR=root left running (a follower, a watcher), its stdout
 * collected as it comes (`output()`); SIGKILLed when the test finishes if it has not exited by then.
 */
export function startSwarm(root: string, args: string[], env: Record<string, string> = {}): { proc: ResultPromise; output: () => string } {
  let out = '';
  const proc = execa(process.execPath, [SWARM_BIN, ...args], {
    env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env },
    reject: false,
    stdin: 'ignore',
  });
  endAfterThisTest(proc);
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  return { proc, output: () => out };
}
