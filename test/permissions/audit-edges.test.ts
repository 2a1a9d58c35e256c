// The audit log's edges (audit.test.ts has the chain under concurrent writers): a last line longer
// than one read chunk, several events in one call, a caller's own `prev` ignored, what readAudit
// reports for a bad line, which event ends a request, and the words of a timeout.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appendAudit, endedRequests, lineDigest, noAnswerWithin, readAudit, verifyAuditChain } from '../../src/permissions/audit.js';
import type { AuditEvent } from '../../src/protocol/permission.js';
import { createTeam, teamPaths, type TeamPaths } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';

let paths: TeamPaths;
useTempRoot(async (root) => {
  await createTeam(root, { name: 't' });
  paths = teamPaths(root, 't');
});

const event = (id: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({ event: 'request', id, at: 1, ...extra });
const lines = async (): Promise<string[]> => (await fs.readFile(paths.audit, 'utf8')).trimEnd().split('\n');

describe('appendAudit', () => {
  it('chains after a last line longer than one read chunk (5 KB, 70 KB)', async () => {
    for (const size of [5_000, 70_000]) {
      await appendAudit(paths, event(`long-${size}`, { reason: 'x'.repeat(size) }));
      await appendAudit(paths, event(`after-${size}`));
      const all = await lines();
      expect((JSON.parse(all.at(-1)!) as { prev: string }).prev, String(size)).toBe(lineDigest(all.at(-2)!));
    }
    expect(await verifyAuditChain(paths)).toEqual({ lines: 4, breaks: [] });
  });

  it('writes several events of one call as chained lines, ignores a prev the caller gives, and writes nothing for none', async () => {
    await appendAudit(paths);
    await expect(fs.stat(paths.audit)).rejects.toMatchObject({ code: 'ENOENT' });
    await appendAudit(paths, event('a', { prev: 'sha256:forged' } as Partial<AuditEvent>), event('b'), event('c'));
    const all = await lines();
    expect(all).toHaveLength(3);
    expect((JSON.parse(all[0]!) as { prev: string }).prev).toBe(lineDigest(''));
    expect((JSON.parse(all[2]!) as { prev: string }).prev).toBe(lineDigest(all[1]!));
    expect(await verifyAuditChain(paths)).toEqual({ lines: 3, breaks: [] });
    await expect(appendAudit(paths, { event: 'nonsense', id: 'x', at: 1 } as unknown as AuditEvent)).rejects.toThrow();
    expect(await lines()).toHaveLength(3);
  });

  it('a log that cannot be read is an io error for the chain check and for readAudit', async () => {
    await fs.mkdir(paths.audit, { recursive: true });
    // Not a regular file: refused unread (storage/jsonl.ts), with how to get rid of it.
    const notRegular = { kind: 'io', message: `${paths.audit} is a directory, not a regular file; swarm does not read it: remove it (rmdir '${paths.audit}')` };
    await expect(verifyAuditChain(paths)).rejects.toMatchObject(notRegular);
    await expect(readAudit(paths)).rejects.toMatchObject(notRegular);
  });
});

describe('a log not written yet', () => {
  it('reads as empty and as an intact chain', async () => {
    expect(await readAudit(paths)).toEqual([]);
    expect(await verifyAuditChain(paths)).toEqual({ lines: 0, breaks: [] });
  });

  it('a last line cut short (no newline) is not written yet: the chain is checked up to it, and goes on from it once ended', async () => {
    await appendAudit(paths, event('a'), event('b'));
    const text = await fs.readFile(paths.audit, 'utf8');
    await fs.writeFile(paths.audit, text.slice(0, -1)); // the newline lost
    expect(await verifyAuditChain(paths)).toEqual({ lines: 1, breaks: [] });
    expect((await readAudit(paths)).map((e) => e.id)).toEqual(['a']);
    await appendAudit(paths, event('c'));
    expect(await verifyAuditChain(paths)).toEqual({ lines: 3, breaks: [] });
    expect((await readAudit(paths)).map((e) => e.id)).toEqual(['a', 'b', 'c']);
  });
});

describe('readAudit', () => {
  it('skips blank lines and reports each bad line by number and why', async () => {
    await fs.mkdir(paths.permissions, { recursive: true });
    await fs.writeFile(paths.audit, `${JSON.stringify(event('a'))}\n\n{"event":"request"\n{"event":"nonsense","id":"b","at":1}\n   \n${JSON.stringify(event('c'))}\n`);
    const bad: [number, string][] = [];
    expect((await readAudit(paths, { onBadLine: (n, problem) => bad.push([n, problem]) })).map((e) => e.id)).toEqual(['a', 'c']);
    expect(bad).toEqual([
      [3, expect.stringMatching(/^not JSON: /)],
      [4, expect.stringMatching(/./)],
    ]);
    expect(bad[1]![1]).not.toBe('not an audit event');
    expect((await readAudit(paths)).map((e) => e.id)).toEqual(['a', 'c']); // no reporter: still skipped
  });
});

describe('endedRequests', () => {
  it('keeps the first ending event of each request; a later request line reopens it; other events end nothing', () => {
    const events: AuditEvent[] = [
      event('p1'),
      { event: 'acted', id: 'p1', at: 2 },
      { event: 'forged', id: 'p1', at: 3 },
      { event: 'decision', id: 'p1', at: 4 },
      { event: 'timeout', id: 'p1', at: 5 },
      event('p2'),
      { event: 'cancelled', id: 'p2', at: 6 },
      event('p2'),
      { event: 'cleared', id: 'p3', at: 7 },
      { event: 'timeout', id: 'p4', at: 8 },
      { event: 'cancelled', id: 'p5', at: 9 },
      { event: 'decision', id: 'p6', at: 10 },
    ];
    const ended = endedRequests(events);
    expect([...ended.keys()].sort()).toEqual(['p1', 'p3', 'p4', 'p5', 'p6']);
    expect(ended.get('p1')).toMatchObject({ event: 'decision', at: 4 });
    expect(ended.get('p3')).toMatchObject({ event: 'cleared' });
  });
});

describe('noAnswerWithin', () => {
  it('says seconds, with one decimal below ten', () => {
    expect(noAnswerWithin(300)).toBe('no answer within 0.3s');
    expect(noAnswerWithin(1_500)).toBe('no answer within 1.5s');
    expect(noAnswerWithin(5_000)).toBe('no answer within 5s');
    expect(noAnswerWithin(12_345)).toBe('no answer within 12s');
    expect(noAnswerWithin(30_000)).toBe('no answer within 30s');
  });
});
