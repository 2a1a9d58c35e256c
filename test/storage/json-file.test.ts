// json-file.ts in process, where a mutant of it can be seen (the stall tests run their writers in
// child processes): the fence that discards a cycle whose file changed under its lock and runs it
// again, and how often; the re-read under the lock of a file caught mid-write; keepInPlace; the
// one-look variant; the io errors (a path that is no regular file among them) and the words of the
// corrupt reports.
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { SwarmError } from '../../src/protocol/errors.js';
import { writeFileAtomicSync } from '../../src/storage/atomic.js';
import {
  defaultCorruptReporter,
  mutateJsonFile,
  mutateJsonFileIfFree,
  parseText,
  readJsonFile,
  updateJsonFile,
  type CorruptReport,
  type RestoredEmpty,
} from '../../src/storage/json-file.js';
import { lockPathFor, queueDirFor, STOPPED_WAITING, withFileLock } from '../../src/storage/lock.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-json-file-');

const Counter = z.object({ n: z.number() });
const counterOpts = (reports: CorruptReport[] = []) => ({ schema: Counter, init: () => ({ n: 0 }), onCorrupt: (r: CorruptReport) => reports.push(r) });
const corruptFiles = async (): Promise<string[]> => (await readdir(dir)).filter((x) => x.includes('.corrupt-'));

describe('the fence before a write', () => {
  it('a cycle whose file changed under its lock writes nothing and runs again on the current file', async () => {
    const f = path.join(dir, 'n.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 1 }));
    const seen: number[] = [];
    const r = await mutateJsonFile(f, counterOpts(), (c) => {
      seen.push(c.n);
      // Another writer took the lock over while this one stalled, and wrote.
      if (seen.length === 1) writeFileAtomicSync(f, '{"n": 10}\n');
      return { write: { n: c.n + 1 }, result: `saw ${c.n}` };
    });
    expect(seen).toEqual([1, 10]);
    expect(r).toBe('saw 10');
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 11 });
  });

  it('a rewrite in place of the same size (a non-atomic writer: same inode) is fenced too, by its mtime', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '{"n": 1}\n');
    const seen: number[] = [];
    await mutateJsonFile(f, counterOpts(), async (c) => {
      seen.push(c.n);
      if (seen.length === 1) {
        // Truncate and write (same inode, same size) until the file system's clock has ticked past the read's mtime.
        const read = (await stat(f, { bigint: true })).mtimeNs;
        await waitFor(async () => (await writeFile(f, '{"n": 2}\n'), (await stat(f, { bigint: true })).mtimeNs !== read), 5000, 'a rewrite with a later mtime');
      }
      return { write: { n: c.n + 10 }, result: undefined };
    });
    expect(seen).toEqual([1, 2]);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 12 });
  });

  it('a file that cannot be stat-ed (a link to itself) is an io error, not a missing file', async () => {
    const f = path.join(dir, 'loop.json');
    await symlink(f, f);
    await expect(mutateJsonFile(f, counterOpts(), () => ({ write: { n: 1 }, result: undefined }))).rejects.toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/^cannot stat \S+loop\.json: ELOOP/),
      cause: { code: 'ELOOP' },
    });
  });

  it('a file created under the lock of a cycle that found none is fenced too', async () => {
    const f = path.join(dir, 'n.json');
    const seen: number[] = [];
    await mutateJsonFile(f, counterOpts(), (c, info) => {
      seen.push(c.n);
      if (!info.existed) writeFileAtomicSync(f, '{"n": 5}\n');
      return { write: { n: c.n + 1 }, result: undefined };
    });
    expect(seen).toEqual([0, 5]);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 6 });
  });

  it('gives up after five runs again (six cycles) with lock_lost, and the other writer keeps its last value', async () => {
    const f = path.join(dir, 'n.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 0 }));
    let cycles = 0;
    const err = await mutateJsonFile(f, counterOpts(), (c) => {
      cycles++;
      writeFileAtomicSync(f, `{"n": ${100 + cycles}}\n`);
      return { write: { n: -1 }, result: undefined };
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwarmError);
    expect(err).toMatchObject({ kind: 'lock_lost', message: `${f} changed under its lock (another writer took the lock over); nothing was written, try again` });
    expect(cycles).toBe(6);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 106 });
  });

  it('a corrupt file kept aside is not fenced against: the cycle runs once, on init', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '{"n": 1,,,');
    const reports: CorruptReport[] = [];
    const infos: boolean[] = [];
    await mutateJsonFile(f, counterOpts(reports), (c, info) => {
      infos.push(info.existed);
      return { write: { n: c.n + 1 }, result: undefined };
    });
    expect(infos).toEqual([false]);
    expect(reports).toHaveLength(1);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 1 });
  });

  it('after a write the next round compares against the file it wrote', async () => {
    const f = path.join(dir, 'n.json');
    await updateJsonFile(f, counterOpts(), () => ({ n: 1 }));
    let rounds = 0;
    const r = await mutateJsonFile(f, counterOpts(), (c, info) => {
      rounds++;
      expect(info.existed).toBe(true);
      return { write: { n: c.n + 1 }, result: rounds, again: () => rounds < 3 };
    });
    expect(r).toBe(1);
    expect(rounds).toBe(3);
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 4 });
  });

  it('a round that writes nothing still runs afterWrite, and a missing file starts from init as not existing', async () => {
    const f = path.join(dir, 'n.json');
    const after: string[] = [];
    const r = await mutateJsonFile(f, counterOpts(), (c, info) => ({ result: `${c.n} ${info.existed}`, afterWrite: () => after.push('after') }));
    expect(r).toBe('0 false');
    expect(after).toEqual(['after']);
    expect(await readJsonFile(f, { schema: Counter })).toBeUndefined();
  });
});

describe('a lock-free read that does not parse', () => {
  it('is read again under the lock: a writer caught mid-write finishes, and nothing is kept aside', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '{"n": 4');
    let finish!: () => void;
    const holding = withFileLock(f, async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      await writeFile(f, '{"n": 42}'); // the non-atomic writer completes its file, still holding the lock
    });
    await waitFor(() => finish !== undefined, 5000, 'the writer holds the lock');
    const reading = readJsonFile(f, { schema: Counter });
    await waitFor(async () => (await readdir(queueDirFor(f)).catch(() => [])).length > 0, 5000, 'the reader waits for the lock');
    finish();
    await holding;
    expect(await reading).toEqual({ n: 42 });
    expect(await corruptFiles()).toEqual([]);
  });

  it('is missing once the writer that held the lock removed it', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '');
    let finish!: () => void;
    const holding = withFileLock(f, async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      await rename(f, path.join(dir, 'moved'));
    });
    await waitFor(() => finish !== undefined, 5000, 'the writer holds the lock');
    const reading = readJsonFile(f, { schema: Counter });
    await waitFor(async () => (await readdir(queueDirFor(f)).catch(() => [])).length > 0, 5000, 'the reader waits for the lock');
    finish();
    await holding;
    expect(await reading).toBeUndefined();
  });

  it('with keepInPlace throws the caller\'s error and moves and writes nothing, on read and on update; a file last changed over 2 s ago at once', async () => {
    const f = path.join(dir, 'config.json');
    await writeFile(f, 'not json');
    const longAgo = new Date(Date.now() - 10_000);
    await utimes(f, longAgo, longAgo); // no write in progress: nothing to wait for
    const keepInPlace = { corruptError: (problem: string) => new SwarmError('corrupt', `config.json is damaged (${problem}); fix it by hand`) };
    const started = Date.now();
    await expect(readJsonFile(f, { schema: Counter, keepInPlace })).rejects.toThrow(/^config\.json is damaged \(invalid JSON: /);
    expect(Date.now() - started).toBeLessThan(1000); // a file changed just now is read again for 2 s
    const fn = vi.fn(() => ({ write: { n: 1 }, result: undefined }));
    await expect(mutateJsonFile(f, { ...counterOpts(), keepInPlace }, fn)).rejects.toThrow(/^config\.json is damaged/);
    expect(fn).not.toHaveBeenCalled();
    expect(await readFile(f, 'utf8')).toBe('not json');
    expect(await corruptFiles()).toEqual([]);
  });

  it('with keepInPlace is read again while the file settles: an unlocked rewrite in place caught empty is read whole, on read and on update', async () => {
    // Claude Code rewrites a team's config.json in place (truncate, then write), some of its writes
    // without the lock: a reader holding the lock can still catch it empty.
    const f = path.join(dir, 'config.json');
    const keepInPlace = { corruptError: (problem: string) => new SwarmError('corrupt', `config.json is damaged (${problem})`) };
    const caughtEmpty = async <R>(start: () => Promise<R>): Promise<R> => {
      await writeFile(f, '');
      let settled = false;
      const running = start().finally(() => (settled = true));
      await waitFor(async () => settled || (await stat(lockPathFor(f)).then(() => true, () => false)), 5000, 'the lock taken over the empty file');
      await writeFile(f, '{"n": 7}\n'); // the writer finishes, never having taken the lock
      return running;
    };
    expect(await caughtEmpty(() => readJsonFile(f, { schema: Counter, keepInPlace }))).toEqual({ n: 7 });
    const seen: number[] = [];
    await caughtEmpty(() => mutateJsonFile(f, { ...counterOpts(), keepInPlace }, (c) => (seen.push(c.n), { write: { n: c.n + 1 }, result: undefined })));
    // Only ever the whole value; a cycle may run again when the unlocked writer's second step (the
    // write after its truncate) lands after the read, as any cycle re-runs on a file that moved.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((n) => n === 7)).toBe(true);
    expect(await readFile(f, 'utf8')).toBe('{\n  "n": 8\n}\n');
    expect(await corruptFiles()).toEqual([]);
  });

  it('with restoreEmpty, a file that settled empty is put back from the last good text this process read or wrote, the empty file kept aside', async () => {
    // A Claude Code teammate that exits between its truncate and its write leaves config.json empty for good.
    const sub = path.join(dir, 'team');
    await mkdir(sub);
    const f = path.join(sub, 'config.json');
    const restored: RestoredEmpty[] = [];
    const keepInPlace = { corruptError: (problem: string) => new SwarmError('corrupt', `damaged (${problem})`), restoreEmpty: (r: RestoredEmpty) => restored.push(r) };
    const emptied = async (): Promise<void> => {
      await writeFile(f, '');
      const longAgo = new Date(Date.now() - 10_000);
      await utimes(f, longAgo, longAgo); // settled: no write in progress
    };
    await writeFile(f, '{"n": 5}\n');
    expect(await readJsonFile(f, { schema: Counter, keepInPlace })).toEqual({ n: 5 });
    await emptied();
    expect(await readJsonFile(f, { schema: Counter, keepInPlace })).toEqual({ n: 5 });
    expect(await readFile(f, 'utf8')).toBe('{"n": 5}\n');
    const kept = (await readdir(sub)).filter((x) => x.includes('.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(sub, kept[0]!), 'utf8')).toBe('');
    expect(restored).toEqual([{ file: f, keptAs: path.join(sub, kept[0]!), seenAt: expect.any(Number) }]);
    // On update too, from the text its last write left.
    await mutateJsonFile(f, { ...counterOpts(), keepInPlace }, (c) => ({ write: { n: c.n + 1 }, result: undefined }));
    await emptied();
    const seen: number[] = [];
    await mutateJsonFile(f, { ...counterOpts(), keepInPlace }, (c) => (seen.push(c.n), { write: { n: c.n + 1 }, result: undefined }));
    expect(seen).toEqual([6]);
    expect(await readJsonFile(f, { schema: Counter, keepInPlace })).toEqual({ n: 7 });
    expect(restored).toHaveLength(2);
  });

  it('restoreEmpty puts back nothing for a file that is not empty, a directory made again, or a file this process never read', async () => {
    const keepInPlace = { corruptError: (problem: string) => new SwarmError('corrupt', `damaged (${problem})`), restoreEmpty: vi.fn() };
    const settle = async (f: string, text: string): Promise<void> => {
      await writeFile(f, text);
      const longAgo = new Date(Date.now() - 10_000);
      await utimes(f, longAgo, longAgo);
    };
    const sub = path.join(dir, 'team');
    await mkdir(sub);
    const f = path.join(sub, 'config.json');
    await writeFile(f, '{"n": 5}\n');
    await readJsonFile(f, { schema: Counter, keepInPlace });
    // Half a write: the bytes are kept where they are, for a person to mend.
    await settle(f, '{"n": ');
    await expect(readJsonFile(f, { schema: Counter, keepInPlace })).rejects.toThrow(/^damaged \(invalid JSON: /);
    expect(await readFile(f, 'utf8')).toBe('{"n": ');
    // The directory deleted and made again: another team of the same name, not the one read.
    await rm(sub, { recursive: true });
    await mkdir(sub);
    await settle(f, '');
    await expect(readJsonFile(f, { schema: Counter, keepInPlace })).rejects.toThrow('damaged (empty file)');
    await expect(mutateJsonFile(f, { ...counterOpts(), keepInPlace }, () => ({ write: { n: 1 }, result: undefined }))).rejects.toThrow('damaged (empty file)');
    // Never read here.
    const other = path.join(dir, 'other.json');
    await settle(other, '');
    await expect(readJsonFile(other, { schema: Counter, keepInPlace })).rejects.toThrow('damaged (empty file)');
    expect(keepInPlace.restoreEmpty).not.toHaveBeenCalled();
    expect(await readFile(f, 'utf8')).toBe('');
    expect((await readdir(sub)).filter((x) => x.includes('.corrupt-'))).toEqual([]);
  });

  it('kept aside says where, in the error of a plain read', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, '   \n');
    const err = await readJsonFile(f, { schema: Counter }).catch((e: unknown) => e);
    const [kept] = await corruptFiles();
    expect(err).toMatchObject({ kind: 'corrupt', message: `${f} was corrupt (empty file); kept as ${path.join(dir, kept!)}, and the next change starts the file afresh` });
  });
});

describe('errors and reports', () => {
  it('a file that cannot be read is an io error, never missing or corrupt (a directory in its place is named, not read)', async () => {
    const f = path.join(dir, 'n.json');
    await mkdir(f);
    const named = `${f} is a directory, not a regular file; swarm does not read it: remove it (rmdir '${f}')`;
    await expect(readJsonFile(f, { schema: Counter })).rejects.toMatchObject({ kind: 'io', message: named });
    await expect(updateJsonFile(f, counterOpts(), (c) => c)).rejects.toMatchObject({ kind: 'io', message: named });
    const plain = path.join(dir, 'plain');
    await writeFile(plain, '');
    await expect(readJsonFile(path.join(plain, 'n.json'), { schema: Counter })).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot read \S+n\.json: ENOTDIR/), cause: { code: 'ENOTDIR' } });
    expect(await corruptFiles()).toEqual([]);
  });

  it('a file that cannot be read is an io error, never missing or corrupt', async () => {
    const f = path.join(dir, `${'n'.repeat(300)}.json`);
    await expect(readJsonFile(f, { schema: Counter })).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot read \S+n\.json: ENAMETOOLONG/), cause: { code: 'ENAMETOOLONG' } });
    expect(await corruptFiles()).toEqual([]);
  });

  it('only a regular file is read: a directory, a FIFO or a symlink is an io error naming it, never followed, waited on or replaced', async () => {
    const target = path.join(dir, 'elsewhere.json');
    await writeFile(target, '{"n": 7}\n');
    const odd: [string, (f: string) => Promise<void>, string][] = [
      ['dir.json', (f) => mkdir(f), 'a directory'],
      ['fifo.json', async (f) => void execFileSync('mkfifo', [f]), 'a FIFO (named pipe)'], // a read that opened it would wait for a writer forever
      ['link.json', (f) => symlink(target, f), 'a symbolic link'],
    ];
    for (const [name, make, kind] of odd) {
      const f = path.join(dir, name);
      await make(f);
      const rm = name === 'dir.json' ? 'rmdir' : 'rm';
      const error = { kind: 'io', message: `${f} is ${kind}, not a regular file; swarm does not read it: remove it (${rm} '${f}')` };
      await expect(readJsonFile(f, { schema: Counter })).rejects.toMatchObject(error);
      await expect(updateJsonFile(f, counterOpts(), (c) => ({ n: c.n + 1 }))).rejects.toMatchObject(error);
    }
    expect(await readFile(target, 'utf8')).toBe('{"n": 7}\n');
    expect((await lstat(path.join(dir, 'link.json'))).isSymbolicLink()).toBe(true);
    expect(await corruptFiles()).toEqual([]);
  });

  it('names the problem: empty file, invalid JSON, or where the shape is wrong', () => {
    expect(parseText(' \n', Counter)).toEqual({ ok: false, problem: 'empty file' });
    expect(parseText('{"n":', Counter)).toMatchObject({ ok: false, problem: expect.stringMatching(/^invalid JSON: /) });
    expect(parseText('{"n": "x"}', Counter)).toMatchObject({ ok: false, problem: expect.stringMatching(/^unexpected shape at n/) });
    expect(parseText('[]', Counter)).toMatchObject({ ok: false, problem: expect.stringMatching(/^unexpected shape at \(root\)/) });
    expect(parseText('{"n": 3}', Counter)).toEqual({ ok: true, value: { n: 3 }, text: '{"n": 3}' });
  });

  it('the default report is one line on stderr, for a whole file and for some entries', () => {
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
    try {
      defaultCorruptReporter({ file: '/r/inboxes/w1.json', keptAs: '/r/inboxes/w1.json.corrupt-1', problem: 'empty file' });
      defaultCorruptReporter({ file: '/r/inboxes/w1.json', keptAs: '/r/inboxes/w1.json.corrupt-2', problem: '2 malformed entries', entries: 2 });
    } finally {
      spy.mockRestore();
    }
    expect(lines).toEqual([
      'swarm: warning: w1.json was corrupt (empty file); kept as /r/inboxes/w1.json.corrupt-1, started a fresh file\n',
      'swarm: warning: w1.json had 2 malformed entries; moved to /r/inboxes/w1.json.corrupt-2, the other entries are kept\n',
    ]);
  });

  it('an update with no onCorrupt reports on stderr', async () => {
    const f = path.join(dir, 'n.json');
    await writeFile(f, 'junk');
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((s) => (lines.push(String(s)), true));
    try {
      await updateJsonFile(f, { schema: Counter, init: () => ({ n: 0 }) }, (c) => ({ n: c.n + 1 }));
    } finally {
      spy.mockRestore();
    }
    expect(lines).toEqual([expect.stringMatching(/^swarm: warning: n\.json was corrupt \(invalid JSON: .*\); kept as \S+, started a fresh file\n$/)]);
  });
});

describe('mutateJsonFileIfFree', () => {
  it('runs at once on a free lock, and gives up at once (nothing run) on a held one', async () => {
    const f = path.join(dir, 'n.json');
    expect(await mutateJsonFileIfFree(f, counterOpts(), (c) => ({ write: { n: c.n + 1 }, result: 'ran' }))).toBe('ran');
    let finish!: () => void;
    const holding = withFileLock(f, () => new Promise<void>((resolve) => (finish = resolve)));
    await waitFor(() => finish !== undefined, 5000, 'the lock is held');
    const fn = vi.fn(() => ({ result: 'ran' }));
    expect(await mutateJsonFileIfFree(f, counterOpts(), fn)).toBe(STOPPED_WAITING); // would wait forever for the lock otherwise
    expect(fn).not.toHaveBeenCalled();
    finish();
    await holding;
    expect(await readJsonFile(f, { schema: Counter })).toEqual({ n: 1 });
    await expect(readdir(lockPathFor(f))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
