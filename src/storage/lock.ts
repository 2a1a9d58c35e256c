// Inter-process locks on shared files, with proper-lockfile.
//
// Layout: the lock for `<file>` is the directory `<file>.lock` (the same lock Claude Code takes, so
// both tools exclude each other). The file itself need not exist (realpath: false). While held, the
// lock dir's mtime is refreshed every `updateMs`; a lock whose mtime is older than `staleMs` belongs
// to a dead holder and is taken over. Waiting uses exponential backoff with jitter (2-25 ms) inside
// a time budget (default 10 s) — not Claude Code's 10 x 5-100 ms, which drops work under contention.
// The budget counts time *without progress*: while the lock keeps changing hands (its directory is
// re-created), the waiter is queued behind live writers, not stuck, and keeps waiting. When the
// budget runs out the caller gets SwarmError('lock_timeout'); nothing is lost.
import lockfile from 'proper-lockfile';
import { stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { errnoCode, SwarmError } from '../protocol/errors.js';

export interface LockOptions {
  /** Total time to keep trying, ms. */
  budgetMs?: number;
  /** Age after which a lock is considered abandoned, ms (proper-lockfile clamps to >= 2000). */
  staleMs?: number;
  /** How often the holder refreshes the lock's mtime, ms (must be < staleMs / 2). */
  updateMs?: number;
  /** First backoff step, ms; doubles each retry up to `maxDelayMs`, each step jittered. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export const DEFAULT_LOCK_OPTIONS: Required<LockOptions> = {
  budgetMs: 10_000,
  staleMs: 4_000,
  updateMs: 1_000,
  minDelayMs: 2,
  maxDelayMs: 25,
};

export function lockPathFor(file: string): string {
  return `${file}.lock`;
}

/** Run `fn` while holding the lock on `file`. Throws SwarmError('lock_timeout') if not acquired in budget. */
export async function withFileLock<R>(file: string, fn: () => Promise<R>, options: LockOptions = {}): Promise<R> {
  const opts = { ...DEFAULT_LOCK_OPTIONS, ...options };
  let compromised: Error | undefined;
  const release = await acquire(file, opts, (err) => {
    compromised = err;
  });
  let result: R;
  try {
    result = await fn();
  } finally {
    await release().catch(() => undefined); // a compromised lock may already be gone
  }
  if (compromised) {
    throw new SwarmError('lock_compromised', `lock on ${file} was lost while held (${compromised.message}); check the result`, {
      cause: compromised,
    });
  }
  return result;
}

async function acquire(
  file: string,
  opts: Required<LockOptions>,
  onCompromised: (err: Error) => void,
): Promise<() => Promise<void>> {
  let deadline = Date.now() + opts.budgetMs;
  let step = opts.minDelayMs;
  let attempts = 0;
  let lastHolder: string | undefined;
  for (;;) {
    attempts++;
    try {
      return await lockfile.lock(file, {
        realpath: false,
        lockfilePath: lockPathFor(file),
        stale: opts.staleMs,
        update: opts.updateMs,
        retries: 0,
        onCompromised,
      });
    } catch (e) {
      if (errnoCode(e) !== 'ELOCKED') {
        throw new SwarmError('io', `cannot lock ${file}: ${(e as Error).message}`, { cause: e });
      }
      const holder = await holderIdentity(file);
      if (holder !== undefined && lastHolder !== undefined && holder !== lastHolder) deadline = Date.now() + opts.budgetMs;
      lastHolder = holder;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new SwarmError(
          'lock_timeout',
          `${file} is locked by another process (no progress for ${opts.budgetMs} ms, ${attempts} attempts); retry, or run 'swarm doctor' if it stays locked`,
          { cause: e },
        );
      }
      const wait = Math.min(left, step / 2 + Math.random() * (step / 2));
      await delay(Math.max(1, wait));
      step = Math.min(opts.maxDelayMs, step * 2);
    }
  }
}

/** Identity of the current lock directory (inode + birth time): changes whenever the lock changes hands. */
async function holderIdentity(file: string): Promise<string | undefined> {
  try {
    const st = await stat(lockPathFor(file));
    return `${st.ino}:${st.birthtimeMs}`; // not ctime: the holder's mtime refresh changes it
  } catch {
    return undefined;
  }
}
