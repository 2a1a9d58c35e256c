// OS-process helpers shared by the pane backends: the injectable `Exec` used to run tmux / it2, a
// liveness check that treats zombies as dead, a deadline poll (no fixed sleeps), and the verified
// SIGTERM -> SIGKILL escalation, and `lastLines` for captured pane output.
//
// Why zombies matter: a pane process whose parent (a killed tmux server, an exited it2 helper) is
// gone is re-parented to PID 1, and some inits reap late; tmux 3.3a itself was seen here leaving a
// fast-exiting pane process unreaped. `kill(pid, 0)` succeeds on a zombie, so on Linux we also
// read the state letter from /proc/<pid>/stat. Without /proc (macOS) a zombie counts as alive.
import { existsSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { errnoCode } from '../protocol/errors.js';

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}
export interface ExecOptions {
  /** The child's whole environment (PATH included); default: this process's environment. */
  env?: Record<string, string | undefined>;
}
/** Runs `file args` without a shell; never rejects on a non-zero exit (127: could not start). */
export type Exec = (file: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

export const execaExec: Exec = async (file, args, opts = {}) => {
  const r = await execa(file, args, {
    reject: false,
    stdin: 'ignore',
    ...(opts.env === undefined ? {} : { env: opts.env, extendEnv: false }),
  });
  const failedToStart = r.exitCode === undefined;
  return {
    exitCode: r.exitCode ?? 127,
    stdout: r.stdout,
    stderr: failedToStart ? (r.shortMessage ?? r.stderr) : r.stderr,
  };
};

/** True while `pid` names a running (non-zombie) process. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return errnoCode(e) === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch (e) {
    // No /proc (macOS): kill(0) succeeded, so count it as alive. ENOENT on Linux: it just exited.
    return errnoCode(e) !== 'ENOENT' || !existsSync('/proc/self/stat');
  }
}

/** Poll `cond` every `intervalMs` until it is true (→ true) or `timeoutMs` passes (→ false). */
export async function pollUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  intervalMs = 25,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(1, deadline - Date.now()))));
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (e) {
    if (errnoCode(e) !== 'ESRCH') throw e;
  }
}

export interface TerminateOptions {
  /** How long to wait for the process to go by itself before SIGTERM (e.g. after closing its pane). */
  waitMs?: number;
  /** How long SIGTERM gets before SIGKILL. */
  termMs?: number;
  /** How long to wait for SIGKILL to take effect. */
  killMs?: number;
}

/**
 * Make sure `pid` is gone: wait briefly, then SIGTERM, then SIGKILL, each with a deadline.
 * Resolves true when the process is verified gone, false if it survived SIGKILL's deadline.
 */
export async function terminateProcess(pid: number, opts: TerminateOptions = {}): Promise<boolean> {
  const gone = (): boolean => !isProcessAlive(pid);
  if (await pollUntil(gone, opts.waitMs ?? 500)) return true;
  signal(pid, 'SIGTERM');
  if (await pollUntil(gone, opts.termMs ?? 2000)) return true;
  signal(pid, 'SIGKILL');
  return pollUntil(gone, opts.killMs ?? 2000);
}

/** The last `n` lines of captured pane text, trailing blank lines dropped and lines right-trimmed. */
export function lastLines(text: string, n: number): string {
  const lines = text.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return n > 0 ? lines.slice(-n).join('\n') : '';
}
