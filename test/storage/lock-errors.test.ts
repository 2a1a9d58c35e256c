// What the lock says when it cannot be had: the exact lock_timeout message (after the budget, with
// the attempts made) for a queued waiter and for a group-commit waiter, and an io error, never a
// timeout, for a file whose directory cannot hold a lock.
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { holdLock } from '../support/held-lock.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-lock-errors-');

describe('when the lock cannot be had', () => {
  it('a queued waiter gives up after its budget with lock_timeout, saying how long and how often it tried, and leaves the line', async () => {
    const f = path.join(dir, 'busy.json');
    const holder = await holdLock(f);
    const err = (await withFileLock(f, async () => 'never', { budgetMs: 300 }).catch((e: unknown) => e)) as { kind: string; message: string };
    expect(err.kind).toBe('lock_timeout');
    expect(err.message).toMatch(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is locked by another process \\(no progress for 300 ms, ([1-9][0-9]*) attempts\\); retry, or run 'swarm doctor' if it stays locked$`));
    await expect(readdir(queueDirFor(f))).rejects.toMatchObject({ code: 'ENOENT' }); // its ticket and the emptied line are gone
    holder.release();
    await holder.held;
  });

  it('a group-commit waiter whose work nobody does gives up the same way, without a ticket', async () => {
    const f = path.join(dir, 'busy.json');
    const holder = await holdLock(f);
    const err = (await withFileLock(f, async () => 'never', { budgetMs: 300 }, { done: () => false }).catch((e: unknown) => e)) as { kind: string; message: string };
    expect(err).toMatchObject({ kind: 'lock_timeout', message: expect.stringMatching(/is locked by another process \(no progress for 300 ms, 0 attempts\); retry, or run 'swarm doctor' if it stays locked$/) });
    holder.release();
    await holder.held;
  });

  it('a file whose directory is a regular file is an io error at once, not a wait', async () => {
    await writeFile(path.join(dir, 'plain'), '');
    const f = path.join(dir, 'plain', 'x.json');
    await expect(withFileLock(f, async () => 'never')).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot lock \S+x\.json: ENOTDIR/), cause: { code: 'ENOTDIR' } });
    await expect(withFileLock(f, async () => 'never', {}, { done: () => false })).rejects.toMatchObject({ kind: 'io' });
  });

  it('a waiting line that is a regular file is an io error naming the file, and nothing runs', async () => {
    const f = path.join(dir, 'line.json');
    await writeFile(queueDirFor(f), 'not a directory');
    let ran = false;
    await expect(withFileLock(f, async () => void (ran = true))).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot lock \S+line\.json: ENOTDIR/) });
    expect(ran).toBe(false);
  });
});
