// awaitFiles: waiting for a condition on files other processes write. It answers at once when the
// condition already holds, wakes on a change in a watched directory (long before its tick), re-checks
// every tick without one, gives up with undefined at its deadline (never later, whatever its tick),
// stops when aborted, and leaves nothing behind: no watch open, no listener on the caller's signal.
import { getEventListeners } from 'node:events';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitFiles } from '../../src/storage/await-files.js';
import { activeHandles } from '../support/handles.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-await-files-');

describe('awaitFiles', () => {
  it('answers with the first value the check gives, at once when it holds already', async () => {
    let checks = 0;
    expect(await awaitFiles([dir], async () => (checks++, 'ready'), { timeoutMs: 60_000 })).toBe('ready');
    expect(checks).toBe(1);
  });

  it('wakes on a change in a watched directory, long before its tick', async () => {
    const flag = path.join(dir, 'flag');
    let checks = 0;
    const waiting = awaitFiles([dir], async () => (checks++, existsSync(flag) ? 'seen' : undefined), { timeoutMs: 60_000, tickMs: 60_000 });
    await expect.poll(() => checks).toBeGreaterThan(0);
    await writeFile(flag, '');
    expect(await waiting).toBe('seen'); // a tick-only wait would outlast the test's timeout
  });

  it('re-checks every tick when nothing is watched, and gives up with undefined at its deadline', async () => {
    let checks = 0;
    expect(await awaitFiles([], async () => (++checks === 3 ? 'third' : undefined), { timeoutMs: 60_000, tickMs: 10 })).toBe('third');
    checks = 0;
    expect(await awaitFiles([dir], async () => void checks++, { timeoutMs: 150, tickMs: 20 })).toBeUndefined();
    expect(checks).toBeGreaterThan(1);
  });

  it('re-checks at the tick it is given, not at the default one', async () => {
    let checks = 0;
    expect(await awaitFiles([], async () => void checks++, { timeoutMs: 1000, tickMs: 10 })).toBeUndefined();
    expect(checks).toBeGreaterThan(20); // about 100; at the default 250 ms tick it would be 5
  });

  it('gives up at its deadline even when its tick is longer', async () => {
    for (const dirs of [[dir], []]) {
      const started = Date.now();
      expect(await awaitFiles(dirs, async () => undefined, { timeoutMs: 100, tickMs: 600_000 })).toBeUndefined();
      expect(Date.now() - started, `waiting on ${dirs.length} dirs`).toBeLessThan(10_000);
    }
  });

  it('closes its watches and leaves no listener on the caller\'s signal when it returns', async () => {
    const watches = (): number => activeHandles('FSEventWrap');
    const ac = new AbortController();
    const flag = path.join(dir, 'flag');
    let checks = 0;
    const waiting = awaitFiles([dir, path.join(dir, 'sub')], async () => (checks++, existsSync(flag) ? 'done' : undefined), { timeoutMs: 60_000, tickMs: 10, signal: ac.signal });
    await expect.poll(() => checks).toBeGreaterThan(5); // rounds that each added a listener
    const waitingWatches = watches(); // the two directories' inotify watches, and any other test's
    expect(waitingWatches).toBeGreaterThanOrEqual(2);
    expect(getEventListeners(ac.signal, 'abort').length).toBeLessThanOrEqual(1); // one round's at most
    await writeFile(flag, '');
    expect(await waiting).toBe('done');
    await expect.poll(watches).toBeLessThanOrEqual(waitingWatches - 2); // a closed watch goes on the next turn
    expect(getEventListeners(ac.signal, 'abort')).toEqual([]);
  });

  it('stops with the abort reason once aborted', async () => {
    const ac = new AbortController();
    let checks = 0;
    const waiting = awaitFiles([dir], async () => void checks++, { timeoutMs: 60_000, tickMs: 60_000, signal: ac.signal });
    await expect.poll(() => checks).toBeGreaterThan(0);
    ac.abort(new Error('stop waiting'));
    await expect(waiting).rejects.toThrow('stop waiting');
  });
});
