// OS-process helpers shared by the pane backends: the injectable `Exec` used to run tmux / it2, a
// liveness check that treats zombies as dead, a deadline poll (no fixed sleeps), the verified
// SIGTERM -> SIGKILL escalation, a process's descendants (what a pane's shell started), and
// `tailLines` for captured pane output. The liveness check itself (zombies count as dead) lives in
// storage/pid.ts and is re-exported here. execa (about 130 modules) is imported on the first run,
// not with this module: a teammate and the light commands import this file without running anything.
import { errnoCode } from '../protocol/errors.js';
import { isProcessAlive, pollUntil, stopForSure, type StopTimings } from '../storage/pid.js';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}
export interface ExecOptions {
  /** The child's whole environment (PATH included); default: this process's environment. */
  env?: Record<string, string | undefined>;
  /** Written to the child's stdin (then closed); default: no stdin. */
  input?: string;
}
/** Runs `file args` without a shell; never rejects on a non-zero exit (127: could not start). */
export type Exec = (file: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

export const execaExec: Exec = async (file, args, opts = {}) => {
  const { execa } = await import('execa');
  const r = await execa(file, args, {
    reject: false,
    ...(opts.input === undefined ? { stdin: 'ignore' as const } : { input: opts.input }),
    ...(opts.env === undefined ? {} : { env: opts.env, extendEnv: false }),
  });
  const failedToStart = r.exitCode === undefined;
  return {
    exitCode: r.exitCode ?? 127,
    stdout: r.stdout,
    stderr: failedToStart ? (r.shortMessage ?? r.stderr) : r.stderr,
  };
};

export { isProcessAlive, pollUntil };

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (e) {
    if (errnoCode(e) !== 'ESRCH') throw e;
  }
}

export type TerminateOptions = StopTimings;

/**
 * Make sure `pid` is gone: wait briefly, then SIGTERM, then SIGKILL, each with a deadline.
 * Resolves true when the process is verified gone, false if it survived SIGKILL's deadline.
 */
export function terminateProcess(pid: number, opts: TerminateOptions = {}): Promise<boolean> {
  return stopForSure((sig) => signal(pid, sig), () => !isProcessAlive(pid), { ...opts, waitMs: opts.waitMs ?? 500 });
}

/** Parent pid → its children's pids, from one `ps`; undefined when `ps` cannot be run. */
export async function processChildren(exec: Exec = execaExec): Promise<Map<number, number[]> | undefined> {
  const r = await exec('ps', ['-A', '-o', 'pid=', '-o', 'ppid=']);
  if (r.exitCode !== 0) return undefined;
  const children = new Map<number, number[]>();
  for (const line of r.stdout.split('\n')) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || !Number.isInteger(child) || !Number.isInteger(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  return children;
}

/**
 * The processes `pid` started (or each of several), children first, then theirs, from one `ps`. A
 * pane Claude Code made runs a shell and types the teammate's command into it, so the teammate is
 * the pane process's child. Empty when `ps` cannot be run: the pane's own process is still checked.
 */
export async function descendantsOf(pid: number | readonly number[], exec: Exec = execaExec): Promise<number[]> {
  const roots = typeof pid === 'number' ? [pid] : pid;
  const children = roots.length === 0 ? undefined : await processChildren(exec);
  const found: number[] = [];
  for (let queue = [...roots]; children !== undefined && queue.length > 0; ) {
    const next = queue.flatMap((p) => children.get(p) ?? []).filter((p) => !roots.includes(p) && !found.includes(p));
    found.push(...next);
    queue = next;
  }
  return found;
}

/**
 * The last `n` non-blank lines of captured pane text, right-trimmed. Blank lines are dropped
 * everywhere: a process that printed one error and exited leaves it at the top of a screen of
 * empty rows, and those rows must not push it out of the tail.
 */
export function tailLines(text: string, n: number): string[] {
  const lines = text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');
  return n > 0 ? lines.slice(-n) : [];
}
