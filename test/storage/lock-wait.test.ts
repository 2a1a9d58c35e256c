// How a waiter waits: it outlasts its budget while the lock keeps changing hands (queued, group
// commit, and in line behind a writer that ignores the line, as Claude Code's do); a waiter whose
// place keeps improving (waiters ahead giving up) outlasts its budget under one long holder; a
// waiter whose ticket was removed (by doctor) still gets the lock and leaves cleanly; a group-commit try that fails is counted in the timeout and never runs the work without
// the lock; a group-commit wait leaves no inotify watch behind.
import { mkdirSync, rmdirSync } from 'node:fs';
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { lockPathFor, queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { inotifyWatches } from '../support/handles.js';
import { holdLock, ticketsInLine } from '../support/held-lock.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-lock-wait-');

/** Three holders in a row, each holding `holdMs`: the first holds now, the other two wait in line. */
async function relay(f: string, holdMs: number): Promise<Promise<void>[]> {
  const first = await holdLock(f);
  const holders = [first.held];
  for (let i = 1; i < 3; i++) {
    holders.push(withFileLock(f, () => sleep(holdMs)));
    await expect.poll(() => ticketsInLine(f)).toBe(i);
  }
  setTimeout(first.release, holdMs);
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
    const holder = await holdLock(f);
    const before = inotifyWatches();
    let done = false;
    const waiting = withFileLock(f, async () => 'mine', {}, { done: () => done, watch: own });
    await expect.poll(inotifyWatches).toBeGreaterThan(before); // it watches the lock and its own file
    done = true;
    holder.release();
    await Promise.all([holder.held, waiting]);
    expect(inotifyWatches()).toBeLessThanOrEqual(before);
  });

  it('at the head of the line sleeps until the lock goes: about one try per 25 ms under a long holder, not hundreds, and no watch left behind', async () => {
    const f = path.join(dir, 'head.json');
    const holder = await holdLock(f);
    const before = inotifyWatches();
    const t0 = Date.now();
    const err = (await withFileLock(f, async () => 'never', { budgetMs: 600 }).catch((e: unknown) => e)) as { kind: string; message: string };
    const waited = Date.now() - t0;
    expect(err.kind).toBe('lock_timeout');
    const attempts = Number(/, (\d+) attempts\)/.exec(err.message)?.[1]);
    // Polling every 1-3 ms made some 300 tries in 600 ms; sleeping on the lock directory, 600 / 25.
    expect(attempts).toBeGreaterThan(0);
    expect(attempts).toBeLessThanOrEqual(Math.ceil(waited / 15));
    expect(inotifyWatches()).toBeLessThanOrEqual(before);
    // And it wakes as the lock goes: a waiter behind a holder that lets go gets the lock.
    const next = withFileLock(f, async () => 'mine');
    await expect.poll(() => ticketsInLine(f)).toBe(1);
    holder.release();
    expect(await next).toBe('mine');
    await holder.held;
  });

  it('behind the head sleeps until the ticket ahead of it leaves, then moves up and gets the lock in turn (the first two race)', async () => {
    const f = path.join(dir, 'line.json');
    const holder = await holdLock(f);
    const order: number[] = [];
    const waiters = [1, 2, 3, 4].map(async (i) => {
      await sleep(i * 30); // tickets in this order
      await withFileLock(f, async () => void order.push(i));
    });
    await expect.poll(() => ticketsInLine(f)).toBe(4);
    holder.release();
    await Promise.all([holder.held, ...waiters]);
    // The first two in line both try the lock, so either may get it first; nobody passes a waiter
    // two places ahead.
    expect([...order].sort()).toEqual([1, 2, 3, 4]);
    for (const i of [1, 2]) expect(order.indexOf(i)).toBeLessThan(order.indexOf(i + 2));
  });

  it('in line outlasts its budget while a writer that ignores the line keeps taking the lock', async () => {
    const f = path.join(dir, 'claude.json');
    const lock = lockPathFor(f);
    mkdirSync(lock); // held by a writer that takes no ticket, as Claude Code's do
    const waiting = withFileLock(f, async () => 'mine', { budgetMs: 1_000 });
    for (let i = 0; i < 3; i++) {
      await sleep(400);
      rmdirSync(lock); // released and taken again at once, in one turn: the waiter cannot slip in
      mkdirSync(lock);
    }
    await sleep(400);
    rmdirSync(lock);
    expect(await waiting).toBe('mine'); // its place never moved; the holder changed every 400 ms
  });

  it('whose ticket was removed (as doctor may) goes first, gets the lock and leaves cleanly', async () => {
    const f = path.join(dir, 'doctored.json');
    const holder = await holdLock(f);
    const waiting = withFileLock(f, async () => 'mine', { budgetMs: 5_000 });
    await expect.poll(() => ticketsInLine(f)).toBe(1);
    await rm(queueDirFor(f), { recursive: true });
    holder.release();
    await holder.held;
    expect(await waiting).toBe('mine');
  });

  it('in line outlasts its budget under one long holder while its place keeps improving', async () => {
    const f = path.join(dir, 'moving.json');
    const holder = await holdLock(f);
    // Three live waiters ahead (this process's pid) that give up one by one, every 400 ms.
    await mkdir(queueDirFor(f), { recursive: true, mode: 0o700 });
    const ahead = [1, 2, 3].map((i) => path.join(queueDirFor(f), `${String(i).padStart(20, '0')}-${process.pid}-00000${i}`));
    for (const t of ahead) await writeFile(t, '');
    const waiting = withFileLock(f, async () => 'mine', { budgetMs: 1_000 });
    for (const t of ahead) {
      await sleep(400);
      await rm(t);
    }
    await sleep(400);
    holder.release();
    await holder.held;
    expect(await waiting).toBe('mine'); // 1.6 s under one holder; its place moved every 400 ms
  });
});
