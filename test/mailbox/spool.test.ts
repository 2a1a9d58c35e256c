// The inbox spool (SPEC §12 group commit): a message a crashed sender left in the spool is merged by
// the next writer or reader exactly once, in timestamp order, and a merger that died between its
// inbox write and removing the spool files causes no duplicate; a spool file that is no message is
// kept aside and reported by whoever meets it (sender, reader, consumer, clear), never just
// deleted. Real files; the "crash" is a spool file written the way a sender writes it, with no
// process left to finish the send.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/index.js';
import { IN_FLIGHT_MS, spoolDirFor, spoolEntry } from '../../src/mailbox/spool.js';
import type { InboxMessage } from '../../src/protocol/index.js';
import { addMember, createTeam, Team } from '../../src/team/index.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import { lockPathFor, withFileLock } from '../../src/storage/lock.js';
import type { CorruptReport } from '../../src/storage/json-file.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
let mb: Mailbox;
let file: string;

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  await addMember(new Team(root, 't'), { name: 'w1' });
  mb = new Mailbox({ team: new Team(root, 't') });
  file = mb.paths.inbox('w1');
});

async function onDisk(): Promise<InboxMessage[]> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as InboxMessage[];
}
async function spooled(): Promise<string[]> {
  return fs.readdir(spoolDirFor(file)).catch(() => []);
}
/** What a sender that died right after spooling leaves behind. */
async function crashedSend(text: string, at: number): Promise<InboxMessage> {
  const entry = { ...mb.makeEntry({ from: 'w2', text }), timestamp: new Date(at).toISOString() };
  await spoolEntry(file, entry, at);
  return entry;
}

describe('the inbox spool', () => {
  it('an append returns with its message in <name>.json and the spool empty', async () => {
    await mb.append('w1', { from: 'w2', text: 'hello' });
    expect((await onDisk()).map((m) => m.text)).toEqual(['hello']);
    expect(await spooled()).toEqual([]);
  });

  it("a crashed sender's message is merged by the next writer, in timestamp order, once", async () => {
    const t = Date.now();
    await crashedSend('later', t - 1000);
    await crashedSend('earlier', t - 2000);
    await mb.append('w1', { from: 'w2', text: 'new' });
    expect((await onDisk()).map((m) => m.text)).toEqual(['earlier', 'later', 'new']);
    expect(await spooled()).toEqual([]);
    await mb.append('w1', { from: 'w2', text: 'newer' });
    expect((await onDisk()).map((m) => m.text)).toEqual(['earlier', 'later', 'new', 'newer']);
  });

  it('…or by the next reader: read() and consume() see it', async () => {
    await crashedSend('orphan', Date.now());
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['orphan']);
    expect(await spooled()).toEqual([]);
    await crashedSend('orphan 2', Date.now());
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['orphan', 'orphan 2']);
    expect(await mb.consume('w1')).toEqual([]);
  });

  it('peek() sees what is spooled without writing anything, and says when junk waits for a locked cycle', async () => {
    const first = await mb.append('w1', { from: 'w2', text: 'in the file' });
    await crashedSend('in the spool', Date.now());
    await spoolEntry(file, first, Date.now()); // a leftover copy of a merged one: not twice
    const before = await fs.stat(file);
    const look = await mb.peek('w1');
    expect([look.entries.map((m) => m.text), look.unsettled]).toEqual([['in the file', 'in the spool'], false]);
    expect((await fs.stat(file)).ino).toBe(before.ino);
    expect(await spooled()).toHaveLength(2);
    await fs.writeFile(file, JSON.stringify([...(await onDisk()), { not: 'a message' }]));
    expect((await mb.peek('w1')).unsettled).toBe(true);
  });

  it('a spool file whose message is already in the inbox (merger died before removing it) is not delivered twice', async () => {
    const e = await mb.append('w1', { from: 'w2', text: 'once' });
    await spoolEntry(file, e, Date.now()); // the leftover
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['once']);
    expect((await onDisk()).map((m) => m.text)).toEqual(['once']);
    expect(await spooled()).toEqual([]);
  });

  it('a spool file that is not a message is kept aside, and the others still land', async () => {
    await fs.mkdir(spoolDirFor(file), { recursive: true });
    const junk = path.join(spoolDirFor(file), '0000000000001-junk.json');
    await fs.writeFile(junk, '{"half');
    const died = (Date.now() - IN_FLIGHT_MS - 1000) / 1000;
    await fs.utimes(junk, died, died); // a sender that died mid-write, long ago
    const quiet = new Mailbox({ team: new Team(root, 't'), onCorrupt: () => undefined });
    await quiet.append('w1', { from: 'w2', text: 'fine' });
    expect((await onDisk()).map((m) => m.text)).toEqual(['fine']);
    const kept = (await fs.readdir(mb.paths.inboxes)).filter((f) => f.startsWith('w1.json.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(JSON.parse(await fs.readFile(path.join(mb.paths.inboxes, kept[0]!), 'utf8'))).toEqual(['{"half']);
  });

  it('a spool file still being written (does not parse yet, fresh) is left for a later cycle, not kept aside', async () => {
    await fs.mkdir(spoolDirFor(file), { recursive: true });
    const partial = path.join(spoolDirFor(file), '0000000000001-partial.json');
    await fs.writeFile(partial, '{"from":"w2","te');
    const reports: unknown[] = [];
    const watched = new Mailbox({ team: new Team(root, 't'), onCorrupt: (r) => reports.push(r) });
    await watched.append('w1', { from: 'w2', text: 'fine' });
    expect((await onDisk()).map((m) => m.text)).toEqual(['fine']);
    expect(reports).toEqual([]);
    expect(await spooled()).toEqual(['0000000000001-partial.json']);
    const whole = { ...mb.makeEntry({ from: 'w2', text: 'finished' }), timestamp: new Date(Date.now() - 5).toISOString() };
    await fs.writeFile(partial, JSON.stringify(whole)); // the sender's write completes
    expect((await watched.consume('w1')).map((m) => m.text)).toEqual(['fine', 'finished']);
    expect(await spooled()).toEqual([]);
  });

  it('a send that times out on a stuck lock says its message is queued, and the next read delivers it once', async () => {
    let release!: () => void;
    const held = withFileLock(file, () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => fs.stat(lockPathFor(file)).then(() => true, () => false)).toBe(true);
    const impatient = new Mailbox({ team: new Team(root, 't'), lock: { budgetMs: 300 } });
    const err = await impatient.append('w1', { from: 'w2', text: 'stuck' }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'lock_timeout')).toBe(true);
    expect((err as Error).message).toMatch(/queued in .*\.spool.*do not send it again/);
    release();
    await held;
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['stuck']);
    expect(await mb.consume('w1')).toEqual([]);
  });
});

describe('a spool file that is not a message is kept aside and reported, never just deleted', () => {
  /** Junk a dead sender left long ago (abandoned: past IN_FLIGHT_MS), and the reports of a mailbox that records them. */
  async function junkAndReports(bytes: string): Promise<{ junk: string; reports: CorruptReport[]; watched: Mailbox }> {
    await fs.mkdir(spoolDirFor(file), { recursive: true });
    const junk = path.join(spoolDirFor(file), '0000000000001-junk.json');
    await fs.writeFile(junk, bytes);
    const died = (Date.now() - IN_FLIGHT_MS - 1000) / 1000;
    await fs.utimes(junk, died, died);
    const reports: CorruptReport[] = [];
    return { junk, reports, watched: new Mailbox({ team: new Team(root, 't'), onCorrupt: (r) => reports.push(r) }) };
  }

  /** The one report: it names the spool file, and its kept file holds the junk's bytes. */
  async function expectKept(reports: CorruptReport[], bytes: string, problem: RegExp): Promise<void> {
    expect(reports).toEqual([expect.objectContaining({ file, entries: 1, problem: expect.stringMatching(problem) })]);
    expect(path.dirname(reports[0]!.keptAs)).toBe(mb.paths.inboxes);
    expect(JSON.parse(await fs.readFile(reports[0]!.keptAs, 'utf8'))).toEqual([bytes]);
  }

  it('by a consumer that meets it first: kept with its bytes, reported by name, and only then removed; the rest delivered', async () => {
    await crashedSend('fine', Date.now() - 500);
    const { junk, reports, watched } = await junkAndReports('{"half');
    expect((await watched.consume('w1')).map((m) => m.text)).toEqual(['fine']);
    await expectKept(reports, '{"half', /^1 malformed entry \(first at spool file 0000000000001-junk\.json: invalid JSON: /);
    await expect(fs.access(junk)).rejects.toThrow(/ENOENT/);
  });

  it('by a consumer, when it is JSON but no message', async () => {
    const { reports, watched } = await junkAndReports('{"hello": 1}');
    expect(await watched.consume('w1')).toEqual([]);
    await expectKept(reports, '{"hello": 1}', /^1 malformed entry \(first at spool file 0000000000001-junk\.json: /);
  });

  it('by a clear (spawn): the inbox is emptied, the junk in it and in its spool kept aside first', async () => {
    await mb.append('w1', { from: 'w2', text: 'old' });
    await fs.writeFile(file, JSON.stringify([...(await onDisk()), { not: 'a message' }]));
    const { junk, reports, watched } = await junkAndReports('{"half');
    await watched.clear('w1');
    expect(await onDisk()).toEqual([]);
    expect(reports).toEqual([expect.objectContaining({ file, entries: 2, problem: expect.stringMatching(/^2 malformed entries \(first at \[1\]: /) })]);
    expect(JSON.parse(await fs.readFile(reports[0]!.keptAs, 'utf8'))).toEqual([{ not: 'a message' }, '{"half']);
    await expect(fs.access(junk)).rejects.toThrow(/ENOENT/);
  });
});
