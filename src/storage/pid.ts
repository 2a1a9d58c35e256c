// Is a process id alive on this machine, and which process is it? The one liveness check every
// layer uses, and the identity the leader lease records (team/lead-lease.ts).
//
// Signal 0 first (EPERM: it exists but is not ours). Zombies count as dead: a pane process whose
// parent (a killed tmux server, an exited it2 helper) is gone is re-parented to PID 1, and some
// inits reap late; tmux 3.3a itself was seen here leaving a fast-exiting pane process unreaped.
// `kill(pid, 0)` succeeds on a zombie, so on Linux we also read the state letter from
// /proc/<pid>/stat. Without /proc (macOS) a zombie counts as alive.
//
// A pid alone does not say which process it is: pids are reused, and after a reboot a low pid (1)
// names whatever started first. processIdentityIn reads what does: the boot id
// (/proc/sys/kernel/random/boot_id, new on every boot), the start time (/proc/<pid>/stat field 22,
// clock ticks since that boot) and a digest of /proc/<pid>/cmdline. A pid reused later differs in
// start time, one after a reboot in boot id, a process that exec'd another program in command line.
// Without /proc (macOS) there is no identity.
//
// stopForSure is the one kill ladder (SIGTERM, a grace, SIGKILL, verified gone) for a process
// (backends/process.ts terminateProcess) and a process group (runtime/tools/process-groups.ts).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ProcessIdentity } from '../protocol/config.js';
import { errnoCode } from '../protocol/errors.js';

/** True while `pid` names a running (non-zombie) process. */
export function isProcessAlive(pid: number): boolean {
  return isProcessAliveIn('/proc', pid);
}

/** Whether `procRoot` is a proc file system (there is none on macOS). */
export function hasProcFs(procRoot: string): boolean {
  return existsSync(path.join(procRoot, 'self', 'stat'));
}

/** The fields of a /proc/<pid>/stat line after the command name: [0] is field 3 (the state). */
function statFields(procRoot: string, pid: number): string[] {
  const stat = readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot (NaN when cut short). */
function startTicksIn(procRoot: string, pid: number): number {
  return Number(statFields(procRoot, pid)[19]);
}

/**
 * isProcessAlive reading process states from the proc file system at `procRoot`: a test points it
 * at a directory of its own to take the paths this machine never takes (no /proc, a state `X`).
 */
export function isProcessAliveIn(procRoot: string, pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return errnoCode(e) === 'EPERM';
  }
  try {
    const state = statFields(procRoot, pid)[0];
    return state !== 'Z' && state !== 'X';
  } catch (e) {
    // No /proc (macOS): kill(0) succeeded, so count it as alive. On Linux it just exited: ENOENT
    // when it was reaped before the open, ESRCH when between the open and the read.
    const code = errnoCode(e);
    return (code !== 'ENOENT' && code !== 'ESRCH') || !hasProcFs(procRoot);
  }
}

/**
 * Which process `pid` is (see the header), read from the proc file system at `procRoot`; undefined
 * without one, or when the process cannot be read (gone, or hidden from us).
 */
export function processIdentityIn(procRoot: string, pid: number): ProcessIdentity | undefined {
  try {
    const bootId = readFileSync(path.join(procRoot, 'sys', 'kernel', 'random', 'boot_id'), 'utf8').trim();
    const startTicks = startTicksIn(procRoot, pid);
    const cmdline = readFileSync(path.join(procRoot, String(pid), 'cmdline'));
    if (!Number.isSafeInteger(startTicks)) return undefined; // a stat line cut short
    return { bootId, startTicks, cmd: createHash('sha256').update(cmdline).digest('hex').slice(0, 16) };
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's start time: 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * When `pid` started (epoch ms, to about 10 ms), from its start time in clock ticks since boot and
 * the machine's uptime; undefined without a proc file system or when it cannot be read.
 */
export function processStartedAtIn(procRoot: string, pid: number, now: number = Date.now()): number | undefined {
  try {
    const uptimeMs = Number(readFileSync(path.join(procRoot, 'uptime'), 'utf8').split(' ')[0]) * 1000;
    const startMs = (startTicksIn(procRoot, pid) / CLOCK_TICKS_PER_SECOND) * 1000;
    return Number.isFinite(uptimeMs) && Number.isFinite(startMs) ? Math.round(now - (uptimeMs - startMs)) : undefined;
  } catch {
    return undefined;
  }
}

/** processStartedAtIn on this machine's /proc. */
export function processStartedAt(pid: number): number | undefined {
  return processStartedAtIn('/proc', pid);
}

/** Poll `cond` every `intervalMs` until it is true (→ true) or `timeoutMs` passes (→ false). */
export async function pollUntil(cond: () => boolean | Promise<boolean>, timeoutMs: number, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(1, deadline - Date.now()))));
  }
}

export interface StopTimings {
  /** How long to wait for it to go by itself before SIGTERM (e.g. after closing its pane). */
  waitMs?: number;
  /** How long SIGTERM gets before SIGKILL. */
  termMs?: number;
  /** How long to wait for SIGKILL to take effect. */
  killMs?: number;
}

/**
 * Make sure something is gone: wait `waitMs` for it to go, then `signal('SIGTERM')`, then
 * `signal('SIGKILL')`, each with a deadline. True once `gone()`, false if it survived SIGKILL's deadline.
 */
export async function stopForSure(signal: (sig: 'SIGTERM' | 'SIGKILL') => void, gone: () => boolean, t: StopTimings = {}): Promise<boolean> {
  if (await pollUntil(gone, t.waitMs ?? 0)) return true;
  signal('SIGTERM');
  if (await pollUntil(gone, t.termMs ?? 2000)) return true;
  signal('SIGKILL');
  return pollUntil(gone, t.killMs ?? 2000);
}
