// The request files both sides share (permissions/pending.ts) called directly: which names in
// pending/ are requests, what a pending record must hold before it is written, exclusive create,
// and ending a request exactly once (audited under its lock).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/permissions/audit.js';
import { createPendingExclusive, endPending, pendingIds, readPending, writePending } from '../../src/permissions/pending.js';
import type { PendingRequest } from '../../src/protocol/permission.js';
import { createTeam, teamPaths, type TeamPaths } from '../../src/team/index.js';
import { pendingRecord } from '../support/pending-record.js';
import { useTempRoot } from '../support/tmp-root.js';

let paths: TeamPaths;
useTempRoot(async (root) => {
  await createTeam(root, { name: 't' });
  paths = teamPaths(root, 't');
});

const pending = pendingRecord;

describe('pendingIds', () => {
  it('lists the ids of <id>.json only, sorted: no temp files, locks, kept-aside copies or unsafe names', async () => {
    await fs.rm(paths.pending, { recursive: true, force: true });
    expect(await pendingIds(paths)).toEqual([]); // no pending/ yet
    for (const id of ['perm-5-e', 'perm-2-b', 'perm-9-z', 'perm-1-a']) await writePending(paths, pending(id));
    for (const name of ['perm-3-c.json.lock', 'perm-1-a.json.corrupt-5', '.perm-4-d.json.tmp', 'notes.txt', '..json', 'a b.json']) {
      await fs.writeFile(path.join(paths.pending, name), '{}');
    }
    expect(await pendingIds(paths)).toEqual(['perm-1-a', 'perm-2-b', 'perm-5-e', 'perm-9-z']);
  });

  it('a pending/ that cannot be listed is an io error that names it', async () => {
    await fs.rm(paths.permissions, { recursive: true, force: true });
    await fs.mkdir(paths.permissions, { recursive: true });
    await fs.writeFile(paths.pending, 'not a directory');
    await expect(pendingIds(paths)).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot list \S+pending: ENOTDIR/), cause: { code: 'ENOTDIR' } });
  });
});

describe('writing and ending a request', () => {
  it('refuses a record of the wrong shape and writes nothing', async () => {
    await expect(writePending(paths, { ...pending('perm-1-a'), status: 'maybe' } as unknown as PendingRequest)).rejects.toThrow();
    await expect(createPendingExclusive(paths, { ...pending('perm-1-a'), input: 'rm -rf /' } as unknown as PendingRequest)).rejects.toThrow();
    expect(await pendingIds(paths)).toEqual([]);
  });

  it('creates a record only once: a second create says false and leaves the first', async () => {
    expect(await createPendingExclusive(paths, pending('perm-1-a'))).toBe(true);
    expect(await createPendingExclusive(paths, pending('perm-1-a', { input: { command: 'other' } }))).toBe(false);
    expect(await readPending(paths, 'perm-1-a')).toMatchObject({ input: { command: 'make' } });
    expect((await fs.stat(paths.pendingFile('perm-1-a'))).mode & 0o777).toBe(0o600);
  });

  it('ends a request once: the first end audits and removes it, a second says false and audits nothing', async () => {
    await writePending(paths, pending('perm-1-a'));
    const event = { event: 'cancelled' as const, id: 'perm-1-a', at: 2, worker: 'w1', reason: 'worker stopped' };
    expect(await endPending(paths, 'perm-1-a', event)).toBe(true);
    await expect(fs.stat(paths.pendingFile('perm-1-a'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await endPending(paths, 'perm-1-a', event)).toBe(false);
    expect(await readAudit(paths)).toEqual([expect.objectContaining({ event: 'cancelled', id: 'perm-1-a', reason: 'worker stopped' })]);
    expect(await readPending(paths, 'perm-1-a')).toBeUndefined();
  });
});
