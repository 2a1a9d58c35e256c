// The audit log's tamper evidence (permissions/audit.ts): lines appended by concurrent processes
// form one unbroken chain of `prev` digests; an edited, removed or hand-added line breaks it where
// it happened; a line cut short by a crash is ended before the next append. Real files, real
// child processes over the built dist/.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendAudit, lineDigest, readAudit, verifyAuditChain } from '../../src/permissions/audit.js';
import { createTeam, teamPaths, type TeamPaths } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';

const DIST_AUDIT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/permissions/audit.js');
const DIST_TEAM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/team/index.js');

let root: string;
let paths: TeamPaths;
useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  paths = teamPaths(root, 't');
});

const event = (id: string) => ({ event: 'request' as const, id, at: 1, worker: 'w1', toolName: 'Bash' });
const lines = async (): Promise<string[]> => (await fs.readFile(paths.audit, 'utf8')).trimEnd().split('\n');

describe('audit chain', () => {
  it('4 processes x 25 appends: 100 lines, one unbroken chain, the first line chained to ""', async () => {
    const script = `
      const { appendAudit } = await import(${JSON.stringify(DIST_AUDIT)});
      const { teamPaths } = await import(${JSON.stringify(DIST_TEAM)});
      const p = teamPaths(process.argv[1], 't');
      for (let i = 0; i < 25; i++) await appendAudit(p, { event: 'request', id: 'perm-' + process.argv[2] + '-' + i, at: i });`;
    await Promise.all([0, 1, 2, 3].map((w) => execa(process.execPath, ['--input-type=module', '-e', script, root, String(w)])));
    const all = await lines();
    expect(all).toHaveLength(100);
    expect((JSON.parse(all[0]!) as { prev: string }).prev).toBe(lineDigest(''));
    expect(await verifyAuditChain(paths)).toEqual({ lines: 100, breaks: [] });
    expect(new Set((await readAudit(paths)).map((e) => e.id)).size).toBe(100);
  });

  it('an edited line breaks the chain at the next one; a removed line where it was; a hand-added line has no prev', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await appendAudit(paths, event(id));
    const original = await lines();
    await fs.writeFile(paths.audit, [original[0], original[1]!.replace('"b"', '"B"'), original[2], original[3]].join('\n') + '\n');
    expect((await verifyAuditChain(paths)).breaks).toEqual([{ line: 3, problem: 'does not follow line 2 (line 2 was edited, or lines between were removed)' }]);
    await fs.writeFile(paths.audit, [original[0], original[2], original[3]].join('\n') + '\n');
    expect((await verifyAuditChain(paths)).breaks).toEqual([{ line: 2, problem: 'does not follow line 1 (line 1 was edited, or lines between were removed)' }]);
    await fs.writeFile(paths.audit, [...original, JSON.stringify(event('forged-by-hand'))].join('\n') + '\n');
    expect((await verifyAuditChain(paths)).breaks).toEqual([{ line: 5, problem: 'has no prev digest after the chain began (added or edited by hand?)' }]);
  });

  it('a blank or corrupt line inserted after the chain began breaks it where it stands and at the line after it', async () => {
    for (const id of ['a', 'b']) await appendAudit(paths, event(id));
    const original = await lines();
    for (const inserted of ['', '{not json']) {
      await fs.writeFile(paths.audit, [original[0], inserted, original[1]].join('\n') + '\n');
      expect((await verifyAuditChain(paths)).breaks.map((b) => b.line), JSON.stringify(inserted)).toEqual([2, 3]);
    }
  });

  it('a log whose first lines were cut off breaks at line 1, which does not start the chain (never "line 0")', async () => {
    for (const id of ['a', 'b', 'c']) await appendAudit(paths, event(id));
    const original = await lines();
    await fs.writeFile(paths.audit, [original[1], original[2]].join('\n') + '\n');
    expect((await verifyAuditChain(paths)).breaks).toEqual([
      { line: 1, problem: 'does not start the chain (its prev is not that of an empty log: the lines before it were removed, or it was edited)' },
    ]);
  });

  it('lines from before chaining are accepted; a line cut by a crash is ended, and the chain goes on from it', async () => {
    await fs.writeFile(paths.audit, `${JSON.stringify(event('old'))}\n{"event":"request","id":"cut`);
    await appendAudit(paths, event('new'));
    const all = await lines();
    expect(all).toHaveLength(3);
    expect(all[1]).toBe('{"event":"request","id":"cut');
    expect((JSON.parse(all[2]!) as { prev: string }).prev).toBe(lineDigest(all[1]!));
    expect(await verifyAuditChain(paths)).toEqual({ lines: 3, breaks: [] });
    const bad: number[] = [];
    expect((await readAudit(paths, { onBadLine: (n) => bad.push(n) })).map((e) => e.id)).toEqual(['old', 'new']);
    expect(bad).toEqual([2]);
  });
});
