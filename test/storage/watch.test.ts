// DirWatcher's contract, beyond the inotify cases in storage.test.ts: the poll fallback alone (no
// inotify) notices each part of a file's identity changing (name, inode, size, mtime) and a
// directory that goes, and nothing else; `changed` keeps one hint for one wait, wakes every waiter
// (also after another one gave up), waits with no timeout for as long as it takes, times out with
// the directory named, honours an abort, leaves no timer or listener behind, and refuses after
// close, which stops the poll; `open` makes a missing directory 0700.
import { EventEmitter, getEventListeners } from 'node:events';
import type { FSWatcher } from 'node:fs';
import { mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import { DirWatcher, LOCAL_POLL_MS, nextChange } from '../../src/storage/watch.js';
import { activeHandles } from '../support/handles.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-watch-');

/** Whether a hint comes within `ms` (a timeout is "no"; any other error is thrown). */
async function hinted(w: DirWatcher, ms = 300): Promise<boolean> {
  try {
    await w.changed(undefined, ms);
    return true;
  } catch (e) {
    if (isSwarmError(e, 'timeout')) return false;
    throw e;
  }
}

/** A watcher that only polls, every 20 ms, with nothing pending. */
async function polling(d: string, match?: (name: string) => boolean): Promise<DirWatcher> {
  const w = await DirWatcher.open(d, { noWatch: true, pollMs: 20, ...(match && { match }) });
  await w.changed(undefined, 1).catch(() => undefined);
  return w;
}

describe('DirWatcher', () => {
  it('opens a missing directory, made 0700', async () => {
    const d = path.join(dir, 'new', 'inbox');
    const w = await DirWatcher.open(d, { pollMs: 0 });
    try {
      expect((await stat(d)).mode & 0o777).toBe(0o700);
    } finally {
      await w.close();
    }
  });

  it('polling, it notices a new name, a new inode, a new size, a new mtime and a removal, and nothing more', async () => {
    const d = path.join(dir, 'p');
    await mkdir(d);
    const file = path.join(d, 'a.json');
    await writeFile(file, '[1]');
    const w = await polling(d);
    try {
      expect(await hinted(w)).toBe(false); // nothing changed
      const { mtime } = await stat(file);

      await writeFile(file, '[2]'); // the same size, a new mtime
      await utimes(file, mtime, new Date(mtime.getTime() + 5000));
      expect(await hinted(w)).toBe(true);

      const other = path.join(dir, 'a.json');
      await writeFile(other, '[2]'); // the same size and mtime, another inode
      const now = await stat(file);
      await utimes(other, now.atime, now.mtime);
      await rename(other, file);
      expect(await hinted(w)).toBe(true);

      await writeFile(file, '[2, 3]'); // a new size; the mtime put back
      await utimes(file, now.atime, now.mtime);
      expect(await hinted(w)).toBe(true);

      await writeFile(path.join(d, 'b.json'), ''); // a new name
      expect(await hinted(w)).toBe(true);

      await rm(path.join(d, 'b.json'));
      expect(await hinted(w)).toBe(true);
      expect(await hinted(w)).toBe(false);
    } finally {
      await w.close();
    }
  });

  it('polling with a filter, a change to a name it does not match is no hint', async () => {
    const d = path.join(dir, 'f');
    await mkdir(d);
    const w = await polling(d, (name) => name === 'a.json');
    try {
      await writeFile(path.join(d, 'b.json'), '[]');
      expect(await hinted(w)).toBe(false);
      await writeFile(path.join(d, 'a.json'), '[]');
      expect(await hinted(w)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('polling, the directory going is a hint', async () => {
    const d = path.join(dir, 'gone');
    await mkdir(d);
    const w = await polling(d);
    try {
      await rm(d, { recursive: true });
      expect(await hinted(w)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('with neither inotify nor polls there is no hint', async () => {
    const d = path.join(dir, 'none');
    const w = await DirWatcher.open(d, { noWatch: true, pollMs: 0 });
    try {
      await writeFile(path.join(d, 'a.json'), '[]');
      expect(await hinted(w)).toBe(false);
    } finally {
      await w.close();
    }
  });

  it('one hint serves one wait, wakes every waiter at once, and a timeout names the directory', async () => {
    const d = path.join(dir, 'h');
    const w = await DirWatcher.open(d, { noWatch: true, pollMs: 0 });
    try {
      w.hint(); // before any wait: kept for the next one
      expect(await hinted(w, 1)).toBe(true);
      expect(await hinted(w, 50)).toBe(false); // used up

      const waits = [w.changed(undefined, 60_000), w.changed(undefined, 60_000)];
      w.hint();
      await Promise.all(waits);
      expect(await hinted(w, 50)).toBe(false); // the waits took the hint

      const err = await w.changed(undefined, 20).catch((e: unknown) => e);
      expect(isSwarmError(err, 'timeout') && err.message).toBe(`no change in ${d} within 20 ms`);
    } finally {
      await w.close();
    }
  });

  it('an abort rejects with its reason, before the wait or during it, and no listener is left on the signal', async () => {
    const d = path.join(dir, 'a');
    const w = await DirWatcher.open(d, { noWatch: true, pollMs: 0 });
    try {
      const ac = new AbortController();
      const waiting = w.changed(ac.signal, 60_000);
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
      ac.abort(new Error('stop'));
      await expect(waiting).rejects.toThrow('stop');
      await expect(w.changed(ac.signal)).rejects.toThrow('stop'); // already aborted: at once
      w.hint();
      await w.changed(ac.signal); // a pending hint answers first, aborted or not

      const quiet = new AbortController();
      const woken = w.changed(quiet.signal, 60_000);
      w.hint();
      await woken;
      await expect(w.changed(quiet.signal, 10)).rejects.toThrow(/no change/);
      expect(getEventListeners(quiet.signal, 'abort')).toEqual([]); // neither the woken wait's nor the timed-out one's
      w.hint(); // the timed-out and aborted waits are gone: this hint is kept for the next wait
      expect(await hinted(w, 1)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('close wakes a waiter; a wait after close is an io error naming the directory', async () => {
    const d = path.join(dir, 'c');
    const w = await DirWatcher.open(d, { pollMs: 0 });
    const waiting = w.changed(undefined, 60_000);
    await w.close();
    await waiting;
    const err = await w.changed().catch((e: unknown) => e);
    expect(isSwarmError(err, 'io') && err.message).toBe(`watcher on ${d} is closed`);
  });

  it('a waiter that gave up (aborted or timed out) does not take another waiter\'s wake', async () => {
    const w = await DirWatcher.open(path.join(dir, 'two'), { noWatch: true, pollMs: 0 });
    try {
      const ac = new AbortController();
      const aborted = w.changed(ac.signal, 60_000);
      const staying = w.changed(undefined, 60_000);
      ac.abort(new Error('gave up'));
      await expect(aborted).rejects.toThrow('gave up');
      await expect(w.changed(undefined, 5)).rejects.toThrow(/no change/);
      w.hint();
      await staying; // still woken: neither the aborted nor the timed-out wait took it off the list
    } finally {
      await w.close();
    }
  });

  it('without a timeout a wait lasts until the hint', async () => {
    const w = await DirWatcher.open(path.join(dir, 'long'), { noWatch: true, pollMs: 0 });
    try {
      let settled = false;
      const waiting = w.changed().then(() => (settled = true), () => (settled = true));
      await sleep(100);
      expect(settled).toBe(false);
      w.hint();
      await waiting;
      expect(settled).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('a wait leaves no timer behind once hinted or aborted, nor a listener once aborted', async () => {
    const timers = (): number => activeHandles('Timeout');
    const w = await DirWatcher.open(path.join(dir, 'timers'), { noWatch: true, pollMs: 0 });
    try {
      const before = timers();
      const hinted = w.changed(undefined, 600_000);
      expect(timers()).toBe(before + 1); // the measure sees the wait's timer
      w.hint();
      await hinted;
      expect(timers()).toBe(before);

      const ac = new AbortController();
      const aborted = w.changed(ac.signal, 600_000);
      ac.abort(new Error('stop'));
      await expect(aborted).rejects.toThrow('stop');
      expect(timers()).toBe(before);
      expect(getEventListeners(ac.signal, 'abort')).toEqual([]);
    } finally {
      await w.close();
    }
  });

  it('close stops the poll', async () => {
    const timers = (): number => activeHandles('Timeout');
    const before = timers();
    const w = await DirWatcher.open(path.join(dir, 'poll'), { noWatch: true, pollMs: 60_000 });
    expect(timers()).toBe(before + 1);
    await w.close();
    expect(timers()).toBe(before);
  });

  it('on a local file system it polls only as a net for a lost event; where inotify misses writes, every pollMs', async () => {
    const local = await DirWatcher.open(path.join(dir, 'local'), { pollMs: 50 });
    const sshfs = await DirWatcher.open(path.join(dir, 'sshfs'), { pollMs: 50, filesystem: async () => ({ type: 'fuse.sshfs', mountPoint: dir, remote: true }) });
    const unknown = await DirWatcher.open(path.join(dir, 'unknown'), { pollMs: 50, filesystem: async () => undefined });
    try {
      expect(local.pollingEveryMs).toBe(LOCAL_POLL_MS);
      expect(sshfs.pollingEveryMs).toBe(50);
      expect(unknown.pollingEveryMs).toBe(50);
    } finally {
      await Promise.all([local.close(), sshfs.close(), unknown.close()]);
    }
  });

  it('with no inotify watch to be had (ENOSPC), the poll carries every change at the full rate', async () => {
    const d = path.join(dir, 'nowatch');
    const w = await DirWatcher.open(d, {
      pollMs: 20,
      watch: () => {
        throw Object.assign(new Error('no watches left'), { code: 'ENOSPC' });
      },
    });
    try {
      expect(w.pollingEveryMs).toBe(20);
      await writeFile(path.join(d, 'a.json'), '[]');
      expect(await hinted(w, 5_000)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('an inotify watch that fails later is a hint, and the poll takes over at the full rate', async () => {
    const fake = Object.assign(new EventEmitter(), { close: () => undefined }) as unknown as FSWatcher;
    const w = await DirWatcher.open(path.join(dir, 'fails'), { pollMs: 20, watch: () => fake });
    try {
      expect(w.pollingEveryMs).toBe(LOCAL_POLL_MS);
      expect(await hinted(w, 50)).toBe(false);
      fake.emit('error', Object.assign(new Error('inotify queue overflow'), { code: 'EIO' }));
      expect(await hinted(w, 50)).toBe(true);
      expect(w.pollingEveryMs).toBe(20);
    } finally {
      await w.close();
    }
  });

  it('the watched directory removed is a hint at once, and the poll then sees it come back', async () => {
    const d = path.join(dir, 'goes');
    const w = await DirWatcher.open(d, { pollMs: 20, match: (b) => b === 'a.json' });
    try {
      expect(w.pollingEveryMs).toBe(LOCAL_POLL_MS);
      await rm(d, { recursive: true });
      expect(await hinted(w, 5_000)).toBe(true);
      expect(w.pollingEveryMs).toBe(20);
      await mkdir(d);
      await writeFile(path.join(d, 'a.json'), '[]');
      expect(await hinted(w, 5_000)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('an event that names no file is a hint; a second error, an error after close or with the poll off starts no poll', async () => {
    let listener: ((event: string, name: string | null) => void) | undefined;
    const fake = (): FSWatcher => Object.assign(new EventEmitter(), { close: () => undefined }) as unknown as FSWatcher;
    const first = fake();
    const w = await DirWatcher.open(path.join(dir, 'noname'), {
      pollMs: 0,
      match: (b) => b === 'a.json',
      watch: (_d, l) => {
        listener = l;
        return first;
      },
    });
    try {
      listener!('rename', null);
      expect(await hinted(w, 50)).toBe(true);
      first.emit('error', new Error('one'));
      first.emit('error', new Error('two')); // the watch is already given up: nothing to close again
      expect(w.pollingEveryMs).toBe(0);
    } finally {
      await w.close();
    }
    const timers = (): number => activeHandles('Timeout');
    const second = fake();
    const closed = await DirWatcher.open(path.join(dir, 'closed'), { pollMs: 20, watch: () => second });
    await closed.close();
    const before = timers();
    second.emit('error', new Error('late'));
    expect(timers()).toBe(before);
  });

  it('nextChange: at the first change of any watcher, after the tick, or at once when aborted; nothing left behind', async () => {
    const a = await DirWatcher.open(path.join(dir, 'na'), { pollMs: 0 });
    const b = await DirWatcher.open(path.join(dir, 'nb'), { pollMs: 0 });
    const timers = (): number => activeHandles('Timeout');
    try {
      const ac = new AbortController();
      const t = Date.now();
      await nextChange([a, b], ac.signal, 100); // nothing changes: the tick
      expect(Date.now() - t).toBeGreaterThanOrEqual(90);
      const before = timers();
      const waiting = nextChange([a, b], ac.signal, 600_000);
      expect(timers()).toBe(before + 1);
      b.hint();
      await waiting;
      expect(timers()).toBe(before);
      expect(getEventListeners(ac.signal, 'abort')).toEqual([]); // a wait that ended by a change leaves no listener on the caller's signal
      const aborted = nextChange([a, b], ac.signal, 600_000);
      ac.abort();
      await aborted;
      expect(timers()).toBe(before);
      await nextChange([a, b], ac.signal, 600_000); // already aborted: at once
      expect(timers()).toBe(before);
      expect(getEventListeners(ac.signal, 'abort')).toEqual([]);
      expect(await hinted(a, 20)).toBe(false); // a's wait was given up, not left to take a later hint
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('takeNames: the files events named since the last take; all when a hint named none, or too many', async () => {
    const d = path.join(dir, 'names');
    const w = await DirWatcher.open(d, { pollMs: 0, match: (b) => b.endsWith('.json') });
    try {
      expect(w.takeNames()).toBe('all'); // the start: nothing is known yet
      await writeFile(path.join(d, 'a.json'), '[]');
      await writeFile(path.join(d, 'b.json'), '[]');
      await writeFile(path.join(d, 'c.txt'), ''); // not matched: not named
      await waitFor(async () => {
        await w.changed(undefined, 5_000);
        const names = w.takeNames();
        return names !== 'all' && names.has('b.json');
      }, 5_000, 'b.json named');
      expect(w.takeNames()).toEqual(new Set());
      w.hint();
      expect(w.takeNames()).toBe('all');
      for (let i = 0; i < 1001; i++) w.hint(`${i}.json`);
      expect(w.takeNames()).toBe('all');
    } finally {
      await w.close();
    }
  });

  it('one file: every replacement by rename, an in-place write and a removal is a hint; a lock, a temp file or another file beside it is none', async () => {
    const d = path.join(dir, 'one');
    await mkdir(d);
    const file = path.join(d, 'w1.json');
    await writeFile(file, '[]');
    const w = await DirWatcher.open(d, { file: 'w1.json', pollMs: 0 });
    try {
      await w.changed(undefined, 1).catch(() => undefined); // the start's hint, if any
      // What a hundred teammates' inboxes, locks and writes do beside it: no hint.
      await mkdir(`${file}.lock`);
      await writeFile(path.join(d, 'w1.json.tmp-1'), '[1]');
      await rename(path.join(d, 'w1.json.tmp-1'), path.join(d, 'w2.json'));
      await rm(`${file}.lock`, { recursive: true });
      expect(await hinted(w)).toBe(false);
      // Three replacements in a row, each seen: the watch moves to the new file every time.
      for (const n of [1, 2, 3]) {
        await writeFile(`${file}.tmp`, `[${n}]`);
        await rename(`${file}.tmp`, file);
        expect(await hinted(w, 5_000)).toBe(true);
        expect(await hinted(w)).toBe(false);
      }
      await writeFile(file, '[4]'); // in place, as a writer without a rename does
      expect(await hinted(w, 5_000)).toBe(true);
      await rm(file);
      expect(await hinted(w, 5_000)).toBe(true);
      expect(w.pollingEveryMs).toBe(0); // inotify carried all of it
    } finally {
      await w.close();
    }
  });

  it('one file that does not exist yet: its creation is a hint, and so is every write after it', async () => {
    const d = path.join(dir, 'later');
    const w = await DirWatcher.open(d, { file: 'w1.json', pollMs: 0 });
    try {
      await w.changed(undefined, 1).catch(() => undefined);
      await writeFile(path.join(d, 'other.json'), '[]');
      expect(await hinted(w)).toBe(false);
      const file = path.join(d, 'w1.json');
      await writeFile(`${file}.tmp`, '[]');
      await rename(`${file}.tmp`, file);
      expect(await hinted(w, 5_000)).toBe(true);
      await writeFile(`${file}.tmp`, '[1]');
      await rename(`${file}.tmp`, file);
      expect(await hinted(w, 5_000)).toBe(true);
      await rm(file); // gone, then back: the directory's watch stands in again
      expect(await hinted(w, 5_000)).toBe(true);
      await writeFile(file, '[2]');
      expect(await hinted(w, 5_000)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('one file, polling: a replacement is a hint, a file beside it is none', async () => {
    const d = path.join(dir, 'onepoll');
    await mkdir(d);
    const file = path.join(d, 'w1.json');
    await writeFile(file, '[]');
    const w = await DirWatcher.open(d, { file: 'w1.json', noWatch: true, pollMs: 20 });
    try {
      await w.changed(undefined, 1).catch(() => undefined);
      await writeFile(path.join(d, 'w2.json'), '[]');
      expect(await hinted(w)).toBe(false);
      await writeFile(`${file}.tmp`, '[1]');
      await rename(`${file}.tmp`, file);
      expect(await hinted(w, 5_000)).toBe(true);
    } finally {
      await w.close();
    }
  });

  it('one file whose directory goes: a hint, and the poll takes over at the full rate', async () => {
    const d = path.join(dir, 'onegoes');
    await mkdir(d);
    await writeFile(path.join(d, 'w1.json'), '[]');
    const w = await DirWatcher.open(d, { file: 'w1.json', pollMs: 20 });
    try {
      await w.changed(undefined, 1).catch(() => undefined);
      expect(w.pollingEveryMs).toBe(LOCAL_POLL_MS);
      await rm(d, { recursive: true });
      expect(await hinted(w, 5_000)).toBe(true);
      await expect.poll(() => w.pollingEveryMs).toBe(20);
    } finally {
      await w.close();
    }
  });
});
