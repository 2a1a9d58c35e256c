// storage/lock.ts in process: the fencing check a holder runs before writing (`assertHeld`), the
// stale lock of a dead holder taken over by a process that held the same lock before, and a lock on
// a file whose directory does not exist yet.
import { mkdir, rmdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import { lockPathFor, withFileLock } from '../../src/storage/lock.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-lock-held-');

/** What `fn` throws (undefined when it returns). */
function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/**
 * Whether the lock's refresh reported it compromised: the guard's own record, read because nothing
 * outside shows when the refresh ran (the alternative is a fixed sleep past `updateMs`).
 */
function compromisedSeen(held: object): boolean {
  return (held as { compromised?: Error }).compromised !== undefined;
}

describe('assertHeld: a holder checks before a write that the lock is still its own', () => {
  it('passes while the lock directory is the one this holder created', async () => {
    const f = path.join(dir, 'a.json');
    await expect(withFileLock(f, async (held) => thrown(() => held.assertHeld()))).resolves.toBeUndefined();
  });
  it('throws lock_lost, saying nothing was written, once the lock directory was replaced (taken over)', async () => {
    const f = path.join(dir, 'b.json');
    const err = await withFileLock(f, async (held) => {
      await rmdir(lockPathFor(f));
      await mkdir(lockPathFor(f));
      return thrown(() => held.assertHeld());
    }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'lock_lost')).toBe(true);
    expect((err as Error).message).toBe(`lock on ${f} was taken over while held (this process stalled past the stale window); nothing was written, try again`);
  });
  it('throws lock_lost once the lock directory is gone', async () => {
    const f = path.join(dir, 'c.json');
    const err = await withFileLock(f, async (held) => {
      await rmdir(lockPathFor(f));
      return thrown(() => held.assertHeld());
    }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'lock_lost')).toBe(true);
  });
});

describe('a lock lost while held (its refresh found it touched by another process)', () => {
  it('assertHeld throws lock_lost, and withFileLock reports lock_compromised with the cause', async () => {
    const f = path.join(dir, 'g.json');
    let inside: unknown;
    const err = await withFileLock(
      f,
      async (held) => {
        // the same directory, touched by someone else: its refresh sees an mtime it did not set
        const old = (Date.now() - 60_000) / 1000;
        await utimes(lockPathFor(f), old, old);
        // the holder's refresh (every updateMs, 1 s at the least) reports it
        await waitFor(() => compromisedSeen(held), 5000, 'the refresh reported the lock compromised');
        inside = thrown(() => held.assertHeld());
        return 'work';
      },
      { staleMs: 2_000, updateMs: 1_000 },
    ).catch((e: unknown) => e);
    expect(isSwarmError(inside, 'lock_lost')).toBe(true);
    expect(isSwarmError(err, 'lock_compromised')).toBe(true);
    expect((err as Error).message).toMatch(new RegExp(`^lock on ${f.replace(/[.]/g, '\\.')} was lost while held \\(.+\\); check the result$`));
    expect((err as Error).cause).toBeInstanceOf(Error);
  });
});

describe('after releasing a lock, this process can still take over a dead holder’s stale one', () => {
  it('a stale lock found on a file this process locked before is taken over, not left as "someone else’s"', async () => {
    const f = path.join(dir, 'd.json');
    await withFileLock(f, async () => undefined);
    await mkdir(lockPathFor(f)); // a holder that died while holding it
    const old = (Date.now() - 60_000) / 1000;
    await utimes(lockPathFor(f), old, old);
    await expect(withFileLock(f, async () => 'taken over', { staleMs: 2_000, budgetMs: 500 })).resolves.toBe('taken over');
  });
});

describe('a lock on a file whose directory is missing', () => {
  it('creates the directory 0700 and takes the lock', async () => {
    const f = path.join(dir, 'new', 'e.json');
    await expect(withFileLock(f, async () => 'locked')).resolves.toBe('locked');
    expect((await stat(path.join(dir, 'new'))).mode & 0o777).toBe(0o700);
  });
});
