// The spool's edges (spool.test.ts has the main paths): merge order by timestamp whatever the file
// names say, what in the spool directory is a message (no directory, FIFO or symlink), a spool file
// that is JSON but no message, old-shape messages (no msg_id) not merged twice, the spool file's
// mode and exclusive create, a spool in a directory not made yet, and a spool path that is not a
// directory.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/index.js';
import { hasSpooled, spoolDirFor, spoolEntry, takeSpooled } from '../../src/mailbox/spool.js';
import type { InboxMessage } from '../../src/protocol/index.js';
import type { CorruptReport } from '../../src/storage/index.js';
import { addMember, createTeam, Team } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
let mb: Mailbox;
let file: string;
let reports: CorruptReport[];

useTempRoot((dir) => (root = dir), 'swarm-spool-edges-');
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  await addMember(new Team(root, 't'), { name: 'w1' });
  reports = [];
  mb = new Mailbox({ team: new Team(root, 't'), onCorrupt: (r) => reports.push(r) });
  file = mb.paths.inbox('w1');
});

const at = (ms: number, text: string, extra: Partial<InboxMessage> = {}): InboxMessage => ({ ...mb.makeEntry({ from: 'w2', text }), timestamp: new Date(ms).toISOString(), ...extra });
const spooled = async (): Promise<string[]> => (await fs.readdir(spoolDirFor(file)).catch(() => [])).sort();

describe('merge order', () => {
  it('is by the message timestamp, not by the spool file name; equal timestamps go by name', async () => {
    const t = Date.parse('2026-12-05T00:00:00.000Z');
    spoolEntry(file, at(t + 2000, 'third'), 1); // the oldest file name holds the newest message
    spoolEntry(file, at(t + 1000, 'second', { msg_id: 'b' }), 2);
    spoolEntry(file, at(t, 'first'), 3);
    spoolEntry(file, at(t + 1000, 'second too', { msg_id: 'a' }), 4);
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['first', 'second', 'second too', 'third']);
    expect(await spooled()).toEqual([]);
  });
});

describe('what in the spool is a message', () => {
  it('leaves dot files and names not ending in .json alone: neither merged nor kept aside', async () => {
    spoolEntry(file, at(Date.now(), 'real'), Date.now());
    const dir = spoolDirFor(file);
    const other = JSON.stringify(at(Date.now(), 'not mine'));
    await fs.writeFile(path.join(dir, '.0000000000001-hidden.json'), other);
    await fs.writeFile(path.join(dir, 'notes.txt'), other);
    await fs.writeFile(path.join(dir, '0000000000001-x.json.tmp'), other);
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['real']);
    expect(await spooled()).toEqual(['.0000000000001-hidden.json', '0000000000001-x.json.tmp', 'notes.txt']);
    expect(reports).toEqual([]);
    expect(hasSpooled(file)).toBe(false);
  });

  it('keeps aside a spool file that is JSON but no message, with why, and merges the rest', async () => {
    const dir = spoolDirFor(file);
    spoolEntry(file, at(Date.now(), 'good'), Date.now());
    await fs.writeFile(path.join(dir, '0000000000002-odd.json'), '{"hello": 1}');
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['good']);
    expect(reports).toEqual([
      expect.objectContaining({ entries: 1, problem: expect.stringMatching(/^1 malformed entry \(first at spool file 0000000000002-odd\.json: Invalid input: expected string, received undefined\)$/) }),
    ]);
    expect(JSON.parse(await fs.readFile(reports[0]!.keptAs, 'utf8'))).toEqual(['{"hello": 1}']);
    expect(await spooled()).toEqual([]);
  });

  it('names the spool file and the JSON error of a half-written file left by a dead sender', async () => {
    const dir = spoolDirFor(file);
    await fs.mkdir(dir, { recursive: true });
    const junk = path.join(dir, '0000000000001-dead.json');
    await fs.writeFile(junk, '{"half');
    const old = (Date.now() - 60_000) / 1000;
    await fs.utimes(junk, old, old);
    await mb.read('w1');
    expect(reports[0]!.problem).toMatch(/^1 malformed entry \(first at spool file 0000000000001-dead\.json: invalid JSON: \S/);
  });

  it('leaves a directory, a FIFO or a symlink named like a spool file where it is (never followed, never waited on), and merges the rest', async () => {
    spoolEntry(file, at(Date.now(), 'real'), Date.now());
    const dir = spoolDirFor(file);
    const elsewhere = path.join(root, 'elsewhere.json');
    await fs.writeFile(elsewhere, JSON.stringify(at(Date.now(), 'through a link')));
    await fs.mkdir(path.join(dir, '0000000000001-odd.json'));
    execFileSync('mkfifo', [path.join(dir, '0000000000002-fifo.json')]);
    await fs.symlink(elsewhere, path.join(dir, '0000000000003-link.json'));
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['real']);
    expect(await spooled()).toEqual(['0000000000001-odd.json', '0000000000002-fifo.json', '0000000000003-link.json']);
    expect(reports).toEqual([]);
    expect(JSON.parse(await fs.readFile(elsewhere, 'utf8'))).toMatchObject({ text: 'through a link' });
  });

  it('a spool path that is not a directory is an error, never an empty spool', async () => {
    await fs.writeFile(spoolDirFor(file), 'not a directory');
    expect(() => hasSpooled(file)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(() => takeSpooled(file, new Set())).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });
});

describe('deduplication', () => {
  it('an old-shape message (no msg_id) already in the inbox is not merged again from a leftover spool file', async () => {
    const { msg_id: _drop, ...old } = at(Date.parse('2026-12-05T00:00:00.000Z'), 'old shape');
    await fs.writeFile(file, JSON.stringify([old, 42]));
    spoolEntry(file, old as InboxMessage, Date.now()); // a merger died after writing the inbox
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['old shape']);
    expect((JSON.parse(await fs.readFile(file, 'utf8')) as InboxMessage[]).map((m) => m.text)).toEqual(['old shape']);
    expect(await spooled()).toEqual([]);
  });
});

describe('spool files', () => {
  it('are 0600 in a 0700 directory (even under umask 0), made with the inbox directory when missing, and never replace one another', async () => {
    const deep = path.join(root, 'elsewhere', 'inboxes', 'w9.json');
    const old = process.umask(0);
    try {
      const entry = at(Date.now(), 'hello');
      const made = spoolEntry(deep, entry, 1_000);
      expect((await fs.stat(made)).mode & 0o777).toBe(0o600);
      expect((await fs.stat(spoolDirFor(deep))).mode & 0o777).toBe(0o700);
      expect(() => spoolEntry(deep, { ...entry, text: 'other words' }, 1_000)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
      expect(JSON.parse(await fs.readFile(made, 'utf8'))).toMatchObject({ text: 'hello' });
    } finally {
      process.umask(old);
    }
  });
});
