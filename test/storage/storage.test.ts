// storage/: atomic writes, the lock budget, corrupt-file quarantine, directory change hints.
import { mkdir, readdir, readFile, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isSwarmError } from '../../src/protocol/errors.js';
import { createFileExclusive, ensureDir, fileExists, keepAside, refuseLinkedDir, writeFileAtomic } from '../../src/storage/atomic.js';
import { mutateJsonFile, readJsonFile, updateJsonFile, type CorruptReport } from '../../src/storage/json-file.js';
import { lockPathFor, queueDirFor, STOPPED_WAITING, withFileLock } from '../../src/storage/lock.js';
import { DirWakeup } from '../../src/storage/dir-wakeup.js';
import { execa } from 'execa';
import { DirWatcher } from '../../src/storage/watch.js';
import { holdLock, ticketsInLine } from '../support/held-lock.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-storage-');

const Counter = z.object({ n: z.number() });
const counterOpts = (reports: CorruptReport[] = []) => ({ schema: Counter, init: () => ({ n: 0 }), onCorrupt: (r: CorruptReport) => reports.push(r) });

describe('writeFileAtomic / ensureDir', () => {
  it('writes 0600 files and 0700 dirs and leaves no temp files', async () => {
    const d = path.join(dir, 'a/b');
    await ensureDir(d);
    const f = path.join(d, 'x.json');
    await writeFileAtomic(f, 'one');
    await writeFileAtomic(f, 'two');
    expect(await readFile(f, 'utf8')).toBe('two');
    expect((await stat(f)).mode & 0o777).toBe(0o600);
    expect((await stat(d)).mode & 0o777).toBe(0o700);
    expect(await readdir(d)).toEqual(['x.json']);
  });
});

describe('createFileExclusive / keepAside', () => {
  it('creates a 0600 file once; a second create (even racing) writes nothing and says false', async () => {
    const f = path.join(dir, 'k.json');
    const wins = await Promise.all(['a', 'b', 'c', 'd'].map((x) => createFileExclusive(f, x)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    const text = await readFile(f, 'utf8');
    expect(['a', 'b', 'c', 'd'][wins.indexOf(true)]).toBe(text);
    expect(await createFileExclusive(f, 'later')).toBe(false);
    expect(await readFile(f, 'utf8')).toBe(text);
    expect((await stat(f)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['k.json']);
  });

  it('keepAside moves a file to <file>.<label>-<ms> and never over an earlier one', async () => {
    const f = path.join(dir, 'r.json');
    await writeFile(f, 'one');
    const first = await keepAside(f, 'rejected', 1000);
    await writeFile(f, 'two');
    const second = await keepAside(f, 'rejected', 1000);
    expect([path.basename(first), path.basename(second)]).toEqual(['r.json.rejected-1000', 'r.json.rejected-1001']);
    expect([await readFile(first, 'utf8'), await readFile(second, 'utf8')]).toEqual(['one', 'two']);
    expect((await readdir(dir)).sort()).toEqual(['r.json.rejected-1000', 'r.json.rejected-1001']);
  });
});

describe('withFileLock', () => {
  it('serialises critical sections within a process', async () => {
    const f = path.join(dir, 'c.json');
    const order: string[] = [];
    const queued = async (): Promise<number> => (await readdir(queueDirFor(f)).catch(() => [])).length;
    await Promise.all(
      [1, 2, 3].map((i) =>
        withFileLock(f, async () => {
          order.push(`in${i}`);
          // Stay inside until every caller not yet served is queued at the door: a lock that let
          // them in would interleave their `in` here.
          const waiting = 3 - order.filter((o) => o.startsWith('in')).length;
          await waitFor(async () => (await queued()) === waiting, 5000, `${waiting} callers queued behind ${i}`);
          order.push(`out${i}`);
        }),
      ),
    );
    for (let k = 0; k < order.length; k += 2) expect(order[k]!.slice(2)).toBe(order[k + 1]!.slice(3));
  });

  it('gives up with lock_timeout after its budget, and removes nothing it does not own', async () => {
    const f = path.join(dir, 'busy.json');
    let release!: () => void;
    const held = withFileLock(f, () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => stat(lockPathFor(f)).then(() => true, () => false)).toBe(true);
    const t0 = Date.now();
    const err = await withFileLock(f, async () => 'never', { budgetMs: 300 }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'lock_timeout')).toBe(true);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(String((err as Error).message)).toMatch(/locked by another process/);
    await expect(stat(lockPathFor(f))).resolves.toBeTruthy(); // still the holder's
    release();
    await held;
  });
});

describe('the waiting line', () => {
  it('tickets of dead processes ahead in line are dropped; the emptied line is removed', async () => {
    const f = path.join(dir, 'q.json');
    const dead = await execa(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(dead.stdout);
    await mkdir(queueDirFor(f), { recursive: true });
    for (let i = 0; i < 5; i++) await writeFile(path.join(queueDirFor(f), `0000000000000000000${i}-${deadPid}-aaaaaa`), '');
    // Someone holds the lock briefly so that we must queue behind the dead tickets. It queues too
    // (the dead tickets are ahead of it), so wait until it is inside, its own ticket gone: the lock
    // directory appears before that, and a ticket of this pid could still be the holder's.
    let release: (() => void) | undefined;
    const held = withFileLock(f, () => new Promise<void>((r) => (release = r)));
    await waitFor(() => release !== undefined, 5000, 'the holder is inside its critical section');
    const waiter = withFileLock(f, async () => 'got it', { budgetMs: 5_000 });
    // release once the waiter has queued (behind the dead tickets, unless it dropped them already)
    await waitFor(async () => (await readdir(queueDirFor(f))).some((t) => t.split('-')[1] === String(process.pid)), 5000, 'the waiter queued');
    release!();
    await held;
    await expect(waiter).resolves.toBe('got it');
    await expect(readdir(queueDirFor(f))).rejects.toThrow(/ENOENT/);
  });

  it('waiters are served in arrival order: nobody jumps more than one place ahead', async () => {
    const f = path.join(dir, 'order.json');
    const got: number[] = [];
    let release!: () => void;
    const held = withFileLock(f, () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => stat(lockPathFor(f)).then(() => true, () => false)).toBe(true);
    const waiters: Promise<void>[] = [];
    for (let i = 0; i < 6; i++) {
      waiters.push(withFileLock(f, async () => void got.push(i)));
      // the next waiter arrives only once this one holds a ticket
      await expect.poll(async () => (await readdir(queueDirFor(f))).length).toBe(i + 1);
    }
    release();
    await held;
    await Promise.all(waiters);
    expect([...got].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    // Only the first two tickets poll, so a waiter can overtake at most the one waiter ahead of it.
    got.forEach((waiter, servedAt) => expect(servedAt).toBeGreaterThanOrEqual(waiter - 1));
  });
});

describe('group commit waiting (withFileLock with stopWaiting)', () => {
  it('gets a free lock at once, and stops waiting (fn never runs) once its work was done by the holder', async () => {
    const f = path.join(dir, 'g.json');
    await expect(withFileLock(f, async () => 'mine', {}, { done: () => false })).resolves.toBe('mine');
    let release!: () => void;
    const held = withFileLock(f, () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => stat(lockPathFor(f)).then(() => true, () => false)).toBe(true);
    let done = false;
    let ran = false;
    const waiter = withFileLock(f, async () => void (ran = true), {}, { done: () => done });
    done = true; // the holder merged this waiter's work
    release();
    await held;
    await expect(waiter).resolves.toBe(STOPPED_WAITING);
    expect(ran).toBe(false);
  });

  it('takes no ticket and never jumps a moving line: a lock freed while a waiter is queued goes to that waiter first', async () => {
    const f = path.join(dir, 'line.json');
    const order: string[] = [];
    const holder = await holdLock(f);
    let done = false; // the queued writer does the group-commit waiter's work too, as a spool merge does
    const queued = withFileLock(f, async () => void (order.push('queued'), (done = true)));
    await expect.poll(() => ticketsInLine(f)).toBe(1);
    const spooled = withFileLock(f, async () => void order.push('group commit'), {}, { done: () => done });
    await new Promise((r) => setTimeout(r, 300)); // several wake-ups of the group-commit waiter (8-100 ms each)
    expect(await readdir(queueDirFor(f))).toHaveLength(1); // no ticket of its own
    holder.release();
    await Promise.all([holder.held, queued]);
    await expect(spooled).resolves.toBe(STOPPED_WAITING); // its work was done meanwhile: it never took the lock
    expect(order).toEqual(['queued']);
  });

  it("takes over a dead holder's stale lock", async () => {
    const f = path.join(dir, 'stale.json');
    await mkdir(lockPathFor(f));
    const old = (Date.now() - 60_000) / 1000;
    await utimes(lockPathFor(f), old, old);
    await expect(withFileLock(f, async () => 'taken over', { staleMs: 2_000, budgetMs: 5_000 }, { done: () => false })).resolves.toBe('taken over');
  });

  it('with the default settings (stale after 10 s), a lock left a minute ago by a dead holder is taken over, even by a waiter that looks once', async () => {
    const f = path.join(dir, 'stale-default.json');
    await mkdir(lockPathFor(f));
    const old = (Date.now() - 60_000) / 1000;
    await utimes(lockPathFor(f), old, old);
    let looks = 0;
    await expect(withFileLock(f, async () => 'taken over', {}, { done: () => looks++ > 0 })).resolves.toBe('taken over');
    // A lock touched just now is a live holder's: left alone.
    await mkdir(lockPathFor(f));
    looks = 0;
    await expect(withFileLock(f, async () => 'taken over', {}, { done: () => looks++ > 0 })).resolves.toBe(STOPPED_WAITING);
    await rmdir(lockPathFor(f));
  });
});

describe('DirWakeup', () => {
  it('a wait ends when the followed directory is removed, and at once when it is already gone', async () => {
    const lock = path.join(dir, 'x.lock');
    await mkdir(lock);
    const w = new DirWakeup();
    try {
      const mark = w.follow(lock, 'first');
      expect(w.watching).toBe(true);
      const waited = w.wait(mark, 600_000); // only the removal can end this within the test timeout
      await rmdir(lock);
      await waited;
      const gone = w.follow(lock, 'second');
      await w.wait(gone, 600_000);
    } finally {
      w.close();
    }
  });

  it("a wait also ends when the waiter's own file goes (alsoWatch), while the lock directory stays", async () => {
    const lock = path.join(dir, 'y.lock');
    const own = path.join(dir, 'spooled.json');
    await mkdir(lock);
    await writeFile(own, '{}');
    const w = new DirWakeup();
    try {
      w.alsoWatch(own);
      const mark = w.follow(lock, 'held');
      const waited = w.wait(mark, 600_000);
      await rm(own);
      await waited;
      expect(await stat(lock).then(() => 'still held')).toBe('still held');
    } finally {
      w.close();
    }
  });
});

describe('json files', () => {
  it('missing file reads as undefined and updates start from init', async () => {
    const f = path.join(dir, 'n.json');
    expect(await readJsonFile(f, { schema: Counter })).toBeUndefined();
    await updateJsonFile(f, counterOpts(), (c) => ({ n: c.n + 1 }));
    await updateJsonFile(f, counterOpts(), (c) => ({ n: c.n + 1 }));
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 2 });
    expect(await readFile(f, 'utf8')).toBe('{\n  "n": 2\n}\n');
  });

  it('rounds: while `again` says so the mutation runs again under the same lock, on the value it just wrote; the result is the first round\'s', async () => {
    const f = path.join(dir, 'r.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 1 }));
    const seen: number[] = [];
    const locks = new Set<string>();
    const r = await mutateJsonFile(f, counterOpts(), async (c) => {
      seen.push(c.n);
      const st = await stat(lockPathFor(f));
      locks.add(`${st.ino}:${st.birthtimeMs}`);
      return { write: { n: c.n * 10 }, result: `round ${seen.length}`, again: () => seen.length < 3 };
    });
    expect(r).toBe('round 1');
    expect(seen).toEqual([1, 10, 100]);
    expect(locks.size).toBe(1); // never released between rounds
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 1000 });
  });

  it('rounds: a later round whose lock was taken over writes nothing and ends the rounds with the first result', async () => {
    const f = path.join(dir, 'r.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 1 }));
    let rounds = 0;
    const r = await mutateJsonFile(f, counterOpts(), async (c) => {
      rounds++;
      if (rounds === 2) {
        await rmdir(lockPathFor(f)); // another process took the lock over: a new lock directory
        await mkdir(lockPathFor(f));
      }
      return { write: { n: c.n + 1 }, result: `round ${rounds}`, again: () => true };
    });
    expect(r).toBe('round 1');
    expect(rounds).toBe(2);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 2 });
    await rmdir(lockPathFor(f));
  });

  it('mutate without `write` leaves the file untouched', async () => {
    const f = path.join(dir, 'n.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 7 }));
    const before = await stat(f);
    const r = await mutateJsonFile(f, counterOpts(), (c) => ({ result: c.n }));
    expect(r).toBe(7);
    expect((await stat(f)).mtimeMs).toBe(before.mtimeMs);
  });

  it('a corrupt file is kept aside with its bytes on update, reported, and a fresh one started', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '{"n": 1,,,');
    const reports: CorruptReport[] = [];
    await updateJsonFile(f, counterOpts(reports), (c) => ({ n: c.n + 1 }));
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 1 });
    expect(reports).toHaveLength(1);
    expect(reports[0]!.problem).toMatch(/invalid JSON/);
    expect(await readFile(reports[0]!.keptAs, 'utf8')).toBe('{"n": 1,,,');
    expect(path.basename(reports[0]!.keptAs)).toMatch(/^n\.json\.corrupt-\d+$/);
  });

  it('a file of the wrong shape is corrupt too; a plain read throws corrupt and keeps the bytes', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '{"n": "seven"}');
    const err = await readJsonFile(f, { schema: Counter }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'corrupt')).toBe(true);
    const kept = (await readdir(dir)).filter((x) => x.startsWith('n.json.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(dir, kept[0]!), 'utf8')).toBe('{"n": "seven"}');
    expect(await readJsonFile(f, { schema: Counter })).toBeUndefined();
  });

  it('two corruptions in the same millisecond keep both copies', async () => {
    const f = path.join(dir, 'n.json');
    const reports: CorruptReport[] = [];
    await writeFile(f, 'bad1');
    await updateJsonFile(f, counterOpts(reports), () => ({ n: 1 }));
    await writeFile(f, 'bad2');
    await updateJsonFile(f, counterOpts(reports), () => ({ n: 1 }));
    expect(new Set(reports.map((r) => r.keptAs)).size).toBe(2);
  });
});

describe('DirWatcher', () => {
  it('hints on a change by another writer, remembers a change made before the wait, and filters names', async () => {
    const d = path.join(dir, 'w');
    await mkdir(d);
    const w = await DirWatcher.open(d, { match: (b) => b === 'a.json' });
    try {
      await writeFileAtomic(path.join(d, 'a.json'), '[]');
      await w.changed(undefined, 5_000); // change before the wait is not lost
      const next = w.changed(undefined, 5_000);
      await writeFileAtomic(path.join(d, 'a.json'), '[1]');
      await next;
    } finally {
      await w.close();
    }
    // The filter, in a directory where nothing a.json-like happens: a late hint from an earlier
    // a.json write (an inotify event, or the poll) cannot land in the window
    // below. Without polls, and once an unfiltered watcher has seen the b.json write, the filtered
    // one has no hint to give; under load this can only miss a broken filter, never fail a good one.
    const f = path.join(dir, 'f');
    const filtered = await DirWatcher.open(f, { match: (b) => b === 'a.json', pollMs: 0 });
    const unfiltered = await DirWatcher.open(f, { pollMs: 0 });
    try {
      await writeFileAtomic(path.join(f, 'b.json'), '[]');
      await unfiltered.changed(undefined, 5_000); // the b.json write was seen
      await expect(filtered.changed(undefined, 200)).rejects.toThrow(/no change/); // b.json does not match
    } finally {
      await filtered.close();
      await unfiltered.close();
    }
  });

  it('a second write within 50 ms of the first still gives a hint (no poll)', async () => {
    const d = path.join(dir, 'burst');
    const w = await DirWatcher.open(d, { match: (b) => b === 'a.json', pollMs: 0 });
    try {
      await writeFileAtomic(path.join(d, 'a.json'), '[]'); // created: an `add`, not throttled
      await w.changed(undefined, 5_000);
      await w.changed(undefined, 100).catch(() => undefined); // drain, and leave the throttle window
      await writeFileAtomic(path.join(d, 'a.json'), '[1]'); // the first `change`
      await w.changed(undefined, 5_000);
      await w.changed(undefined, 5).catch(() => undefined); // drain hints from that write
      const started = Date.now();
      await writeFileAtomic(path.join(d, 'a.json'), '[1,2]');
      await w.changed(undefined, 500);
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      await w.close();
    }
  });

  it('the poll fallback alone sees changes (no inotify)', async () => {
    const d = path.join(dir, 'p');
    const w = await DirWatcher.open(d, { noWatch: true, pollMs: 20 });
    try {
      const next = w.changed(undefined, 5_000);
      await writeFileAtomic(path.join(d, 'x.json'), '[]');
      await next;
    } finally {
      await w.close();
    }
  });

  it('an abort rejects a pending wait', async () => {
    const w = await DirWatcher.open(path.join(dir, 'q'));
    try {
      const ac = new AbortController();
      const p = w.changed(ac.signal);
      ac.abort(new Error('stop'));
      await expect(p).rejects.toThrow('stop');
    } finally {
      await w.close();
    }
  });
});

describe('locks and logs under hostile settings', () => {
  it('a lock directory and its waiting line are 0700, a ticket 0600, even under umask 0, and an empty line is removed', async () => {
    const f = path.join(dir, 'inbox.json');
    const old = process.umask(0);
    try {
      let mode = 0;
      const line = { dir: 0, ticket: 0 };
      let waiter: Promise<string> | undefined;
      const holder = withFileLock(f, async () => {
        mode = (await stat(lockPathFor(f))).mode & 0o777;
        waiter = withFileLock(f, async () => 'second');
        await expect.poll(() => ticketsInLine(f)).toBe(1); // it queued
        const [ticket] = await readdir(queueDirFor(f));
        line.dir = (await stat(queueDirFor(f))).mode & 0o777;
        line.ticket = (await stat(path.join(queueDirFor(f), ticket!))).mode & 0o777;
      });
      await holder;
      expect(await waiter).toBe('second');
      expect(mode).toBe(0o700);
      expect(line).toEqual({ dir: 0o700, ticket: 0o600 });
      await expect(stat(queueDirFor(f))).rejects.toThrow(/ENOENT/);
    } finally {
      process.umask(old);
    }
  });

  it('a directory that is a symlink is refused; a real or missing one is fine; a missing file does not exist', async () => {
    const { symlink } = await import('node:fs/promises');
    await mkdir(path.join(dir, 'real'));
    await symlink(path.join(dir, 'real'), path.join(dir, 'linked'));
    expect(() => refuseLinkedDir(path.join(dir, 'linked'))).toThrow(/linked is a symlink; swarm does not use files through links/);
    expect(() => refuseLinkedDir(path.join(dir, 'real'))).not.toThrow();
    expect(() => refuseLinkedDir(path.join(dir, 'missing'))).not.toThrow();
    expect(await fileExists(path.join(dir, 'real'))).toBe(true);
    expect(await fileExists(path.join(dir, 'missing'))).toBe(false);
  });
  it('an append to a log that is a symlink is refused and the target is untouched', async () => {
    const { appendFileDurable, appendFileDurableSync } = await import('../../src/storage/atomic.js');
    const target = path.join(dir, 'elsewhere.txt');
    await writeFile(target, 'keep\n');
    const { symlink } = await import('node:fs/promises');
    await symlink(target, path.join(dir, 'audit.jsonl'));
    const err = await appendFileDurable(path.join(dir, 'audit.jsonl'), 'x\n').catch((e: unknown) => e);
    expect(isSwarmError(err, 'io') && (err as Error).message).toMatch(/audit\.jsonl is a symlink; swarm does not append through links/);
    expect(() => appendFileDurableSync(path.join(dir, 'audit.jsonl'), 'x\n')).toThrow(/is a symlink/);
    expect(await readFile(target, 'utf8')).toBe('keep\n');
  });
});
