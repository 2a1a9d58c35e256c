// DirWakeup's smaller promises (storage.test.ts has removal and alsoWatch): a wait with no change
// ends at its timeout, a change before the wait ends it at once, following the same identity again
// keeps the watch (no false wake), a new identity replaces it, a missing own file wakes at once, and
// close wakes a waiter.
import { mkdir, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirWakeup } from '../../src/storage/dir-wakeup.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-dir-wakeup-');

async function settles(p: Promise<void>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
}

describe('DirWakeup', () => {
  it('without a change a wait ends at its timeout; a change made before the wait ends it at once', async () => {
    const lock = path.join(dir, 'a.lock');
    await mkdir(lock);
    const w = new DirWakeup();
    try {
      const mark = w.follow(lock, 'one');
      expect(await settles(w.wait(mark, 600_000))).toBe(false); // nothing changed
      await w.wait(mark, 1); // the timeout
      expect(w.follow(lock, 'one')).toBe(mark); // the same holder: the same watch, no change
      const now = Date.now() / 1000;
      await utimes(lock, now, now + 5); // the holder touches its lock
      await expect.poll(() => settles(w.wait(mark, 600_000))).toBe(true);
    } finally {
      w.close();
    }
  });

  it('a new identity replaces the watch; a missing own file wakes at once; close wakes a waiter', async () => {
    const first = path.join(dir, 'b.lock');
    const second = path.join(dir, 'c.lock');
    await mkdir(first);
    await mkdir(second);
    const w = new DirWakeup();
    const mark = w.follow(first, 'one');
    const next = w.follow(second, 'two');
    expect(next).toBe(mark); // following is not a change
    const waiting = w.wait(next, 600_000);
    expect(await settles(waiting)).toBe(false);
    w.close();
    expect(await settles(waiting)).toBe(true);

    const own = new DirWakeup();
    try {
      const m = own.follow(first, 'one');
      own.alsoWatch(path.join(dir, 'gone.json'));
      expect(await settles(own.wait(m, 600_000))).toBe(true);
    } finally {
      own.close();
    }
  });
});
