// How a waiter waits: it outlasts its budget while the lock keeps changing hands (queued, and group
// commit); a group-commit try that fails is counted in the timeout and never runs the work without
// the lock; a group-commit wait leaves no inotify watch behind.
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockPathFor, queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { inotifyWatches } from '../support/inotify.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-lock-wait-');

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Three holders in a row, each holding `holdMs`: the first holds now, the other two wait in line. */
async function relay(f: string, holdMs: number): Promise<Promise<void>[]> {
  let first: (() => void) | undefined;
  const holders = [withFileLock(f, () => new Promise<void>((r) => (first = r)))];
  await expect.poll(() => first !== undefined).toBe(true);
  for (let i = 1; i < 3; i++) {
    holders.push(withFileLock(f, () => sleep(holdMs)));
    await expect.poll(() => readdir(queueDirFor(f)).then((t) => t.length, () => 0)).toBe(i);
  }
  setTimeout(() => first!(), holdMs);
  return holders;
}

describe('a waiter', () => {
  it('in line outlasts its budget while the lock keeps changing hands', async () => {
    const f = path.join(dir, 'queued.json');
    const holders = await relay(f, 400);
    // Behind three holds of 400 ms with a budget of 1 s: progress every 400 ms keeps it waiting.
    expect(await withFileLock(f, async () => 'mine', { budgetMs: 1_000 })).toBe('mine');
    await Promise.all(holders);
  });

  it('for a group commit outlasts its budget while the lock keeps changing hands', async () => {
    const f = path.join(dir, 'spooled.json');
    const holders = await relay(f, 400);
    expect(await withFileLock(f, async () => 'mine', { budgetMs: 1_000 }, { done: () => false })).toBe('mine');
    await Promise.all(holders);
  });

  it('for a group commit counts a try that fails, and never runs the work without the lock', async () => {
    // A lock 1 s old: stale by this waiter's staleMs (500), not by proper-lockfile's, which is never
    // under 2 s. So every try finds it taken, as when another writer takes a free lock first.
    const f = path.join(dir, 'contested.json');
    await mkdir(lockPathFor(f));
    const old = (Date.now() - 1_000) / 1000;
    await utimes(lockPathFor(f), old, old);
    let ran = false;
    const err = await withFileLock(f, async () => void (ran = true), { budgetMs: 300, staleMs: 500 }, { done: () => false }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'lock_timeout', message: expect.stringMatching(/\(no progress for 300 ms, [1-9][0-9]* attempts\)/) });
    expect(ran).toBe(false);
  });

  it('for a group commit leaves no inotify watch behind', async () => {
    const f = path.join(dir, 'watched.json');
    const own = path.join(dir, 'own.json');
    await writeFile(own, '');
    let release: (() => void) | undefined;
    const holder = withFileLock(f, () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => release !== undefined).toBe(true);
    const before = inotifyWatches();
    let done = false;
    const waiting = withFileLock(f, async () => 'mine', {}, { done: () => done, watch: own });
    await expect.poll(inotifyWatches).toBeGreaterThan(before); // it watches the lock and its own file
    done = true;
    release!();
    await Promise.all([holder, waiting]);
    expect(inotifyWatches()).toBeLessThanOrEqual(before);
  });
});
