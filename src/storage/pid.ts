// Is a process id alive on this machine? The one liveness check every layer uses.
//
// Signal 0 first (EPERM: it exists but is not ours). Zombies count as dead: a pane process whose
// parent (a killed tmux server, an exited it2 helper) is gone is re-parented to PID 1, and some
// inits reap late; tmux 3.3a itself was seen here leaving a fast-exiting pane process unreaped.
// `kill(pid, 0)` succeeds on a zombie, so on Linux we also read the state letter from
// /proc/<pid>/stat. Without /proc (macOS) a zombie counts as alive.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errnoCode } from '../protocol/errors.js';

/** True while `pid` names a running (non-zombie) process. */
export function isProcessAlive(pid: number): boolean {
  return isProcessAliveIn('/proc', pid);
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
    const stat = readFileSync(path.join(procRoot, String(pid), 'stat'), 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch (e) {
    // No /proc (macOS): kill(0) succeeded, so count it as alive. ENOENT on Linux: it just exited.
    return errnoCode(e) !== 'ENOENT' || !existsSync(path.join(procRoot, 'self', 'stat'));
  }
}
