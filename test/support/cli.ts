// Run the `swarm` command line in a test: the real, built executable (bin/swarm.js -> dist/) as a
// child process (`swarm`, `startSwarm` for one left running), or the same command line in-process
// through main(argv, io) (`swarmInProcess`).
import { execa, type Result, type ResultPromise } from 'execa';
import { createReadStream, openSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';
import { normalizeColorEnv } from '../../src/cli/output/color.js';
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

/** What a command wrote to one stream, in-process. */
class Collected {
  text = '';
  readonly isTTY = false;
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/**
 * The in-process twin of `swarm()`: the same command line through main(argv, io) in this process,
 * with the same environment (this process's, plus CLAUDE_CONFIG_DIR=root, NO_COLOR=1, SWARM_TEAM=''
 * and `env`, normalised as bin/swarm.js does) copied for this call alone, stdin /dev/null as the
 * child's, and stdout/stderr collected. With `extendEnv: false` (execa's word) the environment is
 * CLAUDE_CONFIG_DIR=root and `env` alone. For tests of arguments, help, output and errors; a test
 * about processes, signals or terminals runs the real executable with `swarm()`.
 */
export async function swarmInProcess(root: string, args: string[], env: Record<string, string> = {}, opts: { extendEnv?: boolean } = {}): Promise<CliResult> {
  const ioEnv: NodeJS.ProcessEnv =
    opts.extendEnv === false ? { CLAUDE_CONFIG_DIR: root, ...env } : { ...process.env, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env };
  normalizeColorEnv(ioEnv);
  const stdout = new Collected();
  const stderr = new Collected();
  const stdin = createReadStream('/dev/null', { fd: openSync('/dev/null', 'r') });
  try {
    const exitCode = await main(args, { env: ioEnv, cwd: process.cwd(), stdin, stdout, stderr });
    return { stdout: stdout.text.replace(/\n$/, ''), stderr: stderr.text.replace(/\n$/, ''), exitCode };
  } finally {
    stdin.destroy();
  }
}
