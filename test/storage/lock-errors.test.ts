// What the lock says when it cannot be had: the exact lock_timeout message (after the budget, with
// the attempts made) for a queued waiter and for a group-commit waiter, and an io error, never a
// timeout, for a file whose directory cannot hold a lock or whose lock path is no directory.
import { execFileSync } from 'node:child_process';
import { readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockPathFor, queueDirFor, withFileLock } from '../../src/storage/lock.js';
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

  describe('a lock path that is no directory (a plain file, a symlink, a FIFO): nobody can ever take it', () => {
    const re = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    /** What both kinds of waiter get (a short budget: a waiter that waited would fail with lock_timeout instead). */
    async function refusals(f: string): Promise<unknown[]> {
      let ran = false;
      const run = async (): Promise<void> => void (ran = true);
      const errors = [
        await withFileLock(f, run, { budgetMs: 1000 }).catch((e: unknown) => e),
        await withFileLock(f, run, { budgetMs: 1000 }, { done: () => false }).catch((e: unknown) => e),
      ];
      expect(ran).toBe(false);
      return errors;
    }

    it('an empty file, fresh or old: io at once, naming the path and swarm doctor --fix', async () => {
      const f = path.join(dir, 'bob.json');
      await writeFile(lockPathFor(f), '');
      const message = `${lockPathFor(f)} is an empty file, not a lock directory, so nobody can lock bob.json; remove it (swarm doctor --fix does), then try again`;
      for (const e of await refusals(f)) expect(e).toMatchObject({ kind: 'io', message });
      const old = (Date.now() - 60_000) / 1000; // past the stale window: proper-lockfile would rmdir it (ENOTDIR)
      await utimes(lockPathFor(f), old, old);
      for (const e of await refusals(f)) expect(e).toMatchObject({ kind: 'io', message });
    });

    it('a file with content, a symlink, a FIFO: each named as what it is, with its fix', async () => {
      const cases: [string, (lock: string) => Promise<void>, string][] = [
        ['text.json', (l) => writeFile(l, 'mine'), 'is a file, not a lock directory, so nobody can lock text.json; look at it, then remove it (rm \''],
        ['link.json', (l) => symlink(dir, l), 'is a symbolic link, not a lock directory, so nobody can lock link.json; remove it (swarm doctor --fix does), then try again'],
        ['dangling.json', (l) => symlink(path.join(dir, 'nowhere'), l), 'is a symbolic link, not a lock directory'],
        ['fifo.json', async (l) => void execFileSync('mkfifo', [l]), 'is a FIFO (named pipe), not a lock directory, so nobody can lock fifo.json; look at it, then remove it (rm \''],
      ];
      for (const [name, make, says] of cases) {
        const f = path.join(dir, name);
        await make(lockPathFor(f));
        for (const e of await refusals(f)) expect(e).toMatchObject({ kind: 'io', message: expect.stringMatching(new RegExp(`^${re(lockPathFor(f))} ${re(says)}`)) });
      }
    });
  });
});
