// The waiting line when a waiter in it died or stopped: a plain waiter drops a dead ticket ahead of it
// (and a name that is no ticket) and keeps a live one, and takes a lock two stopped pollers ahead of
// it leave free for 100 ms; a group-commit waiter (no ticket) leaves the
// free lock to the line for 100 ms, then is not held up by a line that leaves it alone (its head dead
// or stopped): it drops the dead tickets and the emptied line, and keeps the live ones. Before, a ticket left by a waiter killed in line made every group commit on that
// file wait out its whole budget and fail with lock_timeout.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { deadPid } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-lock-line-');

/** Put tickets in the file's line, in this order, the way a waiter names its own: `<ns>-<pid>-<hex>`. */
async function lineUp(file: string, pids: number[]): Promise<string[]> {
  await mkdir(queueDirFor(file), { recursive: true, mode: 0o700 });
  const names = pids.map((pid, i) => `${String(i + 1).padStart(20, '0')}-${pid}-00000${i}`);
  for (const n of names) await writeFile(path.join(queueDirFor(file), n), '');
  return names;
}

async function line(file: string): Promise<string[] | 'gone'> {
  return readdir(queueDirFor(file)).catch(() => 'gone' as const);
}

describe('the waiting line, when a waiter in it died or stopped', () => {
  it('a plain waiter drops a dead ticket ahead of it, keeps a live one, and gets the lock', async () => {
    const f = path.join(dir, 'plain.json');
    const [live] = await lineUp(f, [process.pid, await deadPid()]);
    // Third in line, it does not poll; only once the dead ticket goes is it second, and polls.
    expect(await withFileLock(f, async () => line(f), { budgetMs: 5_000 })).toEqual([live]);
    expect(await line(f)).toEqual([live]);
  });

  it('a plain waiter behind two stopped pollers takes the lock they leave free, after 100 ms, and keeps their tickets', async () => {
    const f = path.join(dir, 'stopped-pollers.json');
    const stopped = await lineUp(f, [process.pid, process.pid]); // alive, but they never take the lock
    const started = Date.now();
    // Third in line it never polls; before, it waited out its budget and failed with lock_timeout.
    expect(await withFileLock(f, async () => 'written', { budgetMs: 3_000 })).toBe('written');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100); // a live line's pollers look every 1-3 ms
    expect(await line(f)).toEqual(stopped);
  });

  it('a group-commit waiter is not held up by a line whose only ticket is dead: it drops it and the line', async () => {
    const f = path.join(dir, 'spooled.json');
    await lineUp(f, [await deadPid()]);
    expect(await withFileLock(f, async () => 'written', { budgetMs: 5_000 }, { done: () => false })).toBe('written');
    expect(await line(f)).toBe('gone');
  });

  it('a group-commit waiter is not held up by a stopped head either, after leaving it the lock for 100 ms, and keeps its ticket', async () => {
    const f = path.join(dir, 'stopped.json');
    const [stopped] = await lineUp(f, [process.pid]); // alive, but it never takes the lock
    const started = Date.now();
    expect(await withFileLock(f, async () => 'written', { budgetMs: 5_000 }, { done: () => false })).toBe('written');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100); // a live line's pollers look every 1-3 ms
    expect(await line(f)).toEqual([stopped]);
  });

  it('a name in the line that is no ticket (no pid) is dropped like a dead one', async () => {
    const f = path.join(dir, 'junk.json');
    await mkdir(queueDirFor(f), { recursive: true, mode: 0o700 });
    await writeFile(path.join(queueDirFor(f), 'left-by-hand'), '');
    expect(await withFileLock(f, async () => 'written', { budgetMs: 5_000 }, { done: () => false })).toBe('written');
    expect(await line(f)).toBe('gone');
  });
});
