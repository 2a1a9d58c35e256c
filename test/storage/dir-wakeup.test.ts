// DirWakeup's smaller promises (storage.test.ts has removal and alsoWatch): a wait with no change
// ends at its timeout, a change before the wait ends it at once, following the same identity again
// keeps the watch (no false wake), a new identity replaces it and the old one no longer wakes, a
// missing own file wakes at once, and close wakes a waiter. With a recording fs.watch: a system with
// no inotify left makes every wait a plain sleep (a missing directory does not), a watch error wakes
// the waiter instead of throwing, and its watches never keep the process alive.
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DirWakeup, type WatchFn } from '../../src/storage/dir-wakeup.js';
import { activeHandles } from '../support/handles.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-dir-wakeup-');

async function settles(p: Promise<void>): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
}

/** The real fs.watch, each watcher it makes kept in `made`; it throws with `failing`'s code while set. */
function recordingWatch(): { watchPath: WatchFn; made: FSWatcher[]; failing?: string } {
  const rec: { watchPath: WatchFn; made: FSWatcher[]; failing?: string } = {
    made: [],
    watchPath: (p, options, listener) => {
      if (rec.failing !== undefined) throw Object.assign(new Error(`${rec.failing}: no inotify instance left`), { code: rec.failing });
      const w = watch(p, options, listener);
      rec.made.push(w);
      return w;
    },
  };
  return rec;
}

async function touch(p: string): Promise<void> {
  const now = Date.now() / 1000;
  await utimes(p, now, now + 5);
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

  it('a directory already gone is a change, not a lost inotify: it goes on watching', async () => {
    const w = new DirWakeup();
    try {
      const mark = w.follow(path.join(dir, 'gone.lock'), 'one');
      expect(await settles(w.wait(mark, 600_000))).toBe(true);
      expect(w.watching).toBe(true);
    } finally {
      w.close();
    }
  });

  it('with no inotify left every wait is a plain sleep: nothing more is watched, so the caller polls', async () => {
    const first = path.join(dir, 'd.lock');
    const second = path.join(dir, 'e.lock');
    const own = path.join(dir, 'own.json');
    await mkdir(first);
    await mkdir(second);
    await writeFile(own, '[]');
    const rec = recordingWatch();
    rec.failing = 'EMFILE';
    const w = new DirWakeup(rec.watchPath);
    try {
      const mark = w.follow(first, 'one');
      expect(w.watching).toBe(false);
      expect(await settles(w.wait(mark, 600_000))).toBe(true); // the failed watch is a change: look again now
      rec.failing = undefined; // inotify would work again: it is not retried
      const next = w.follow(second, 'two');
      w.alsoWatch(own);
      expect(rec.made).toEqual([]);
      await touch(second);
      await touch(own);
      expect(await settles(w.wait(next, 600_000))).toBe(false);
    } finally {
      w.close();
    }
  });

  it('a watch error wakes the waiter instead of throwing', async () => {
    const [lock, own] = [path.join(dir, 'f.lock'), path.join(dir, 'own.json')];
    await mkdir(lock);
    await writeFile(own, '[]');
    const rec = recordingWatch();
    const w = new DirWakeup(rec.watchPath);
    try {
      const mark = w.follow(lock, 'one');
      w.alsoWatch(own);
      expect(rec.made).toHaveLength(2);
      expect(await settles(w.wait(mark, 600_000))).toBe(false);
      rec.made[0]!.emit('error', new Error('EPERM: the lock directory'));
      expect(await settles(w.wait(mark, 600_000))).toBe(true);
      const again = w.follow(lock, 'one');
      rec.made[1]!.emit('error', new Error('EPERM: the own file'));
      expect(await settles(w.wait(again, 600_000))).toBe(true);
    } finally {
      w.close();
    }
  });

  it('the same holder keeps its one watch; a new holder\'s replaces it, and the old one no longer wakes', async () => {
    const [first, second] = [path.join(dir, 'g.lock'), path.join(dir, 'h.lock')];
    await mkdir(first);
    await mkdir(second);
    const rec = recordingWatch();
    const w = new DirWakeup(rec.watchPath);
    try {
      w.follow(first, 'one');
      w.follow(first, 'one');
      expect(rec.made).toHaveLength(1);
      const next = w.follow(second, 'two');
      expect(rec.made).toHaveLength(2);
      await touch(first);
      expect(await settles(w.wait(next, 600_000))).toBe(false);
      await touch(second);
      await expect.poll(() => settles(w.wait(next, 600_000))).toBe(true);
    } finally {
      w.close();
    }
  });

  it('a waiter has one own file: a second alsoWatch is ignored', async () => {
    const lock = path.join(dir, 'i.lock');
    const a = path.join(dir, 'a.json');
    const b = path.join(dir, 'b.json');
    await mkdir(lock);
    await writeFile(a, '[]');
    await writeFile(b, '[]');
    const rec = recordingWatch();
    const w = new DirWakeup(rec.watchPath);
    try {
      const mark = w.follow(lock, 'one');
      w.alsoWatch(a);
      w.alsoWatch(b);
      expect(rec.made).toHaveLength(2); // the lock and a
      await touch(b);
      expect(await settles(w.wait(mark, 600_000))).toBe(false);
      await touch(a);
      await expect.poll(() => settles(w.wait(mark, 600_000))).toBe(true);
    } finally {
      w.close();
    }
  });

  it('its watches never keep the process alive', async () => {
    const [lock, own] = [path.join(dir, 'j.lock'), path.join(dir, 'own.json')];
    await mkdir(lock);
    await writeFile(own, '[]');
    const keptAlive = (): number => activeHandles('FSEventWrap');
    const before = keptAlive();
    const w = new DirWakeup();
    try {
      w.follow(lock, 'one');
      w.alsoWatch(own);
      expect(keptAlive()).toBeLessThanOrEqual(before);
    } finally {
      w.close();
    }
  });
});
