// Many writer processes on one inbox: nothing lost, nothing duplicated, per-writer order kept, the
// file valid JSON at every moment a reader looks; a writer SIGKILLed while holding the lock does not
// block the others beyond stale detection and loses nothing already written.
import { execa } from 'execa';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { InboxSchema } from '../../src/protocol/message.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { lockPathFor } from '../../src/storage/lock.js';
import { REPO } from '../support/cli.js';
import { printedLine } from '../support/child-lines.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';
import { endAfterThisTest } from '../support/children.js';

const WORKER = path.join(REPO, 'test/support/append-worker.mjs');
const READER = path.join(REPO, 'test/support/inbox-reader.mjs');
const HOLDER = path.join(REPO, 'test/support/lock-holder.mjs');
const HALF_WRITER = path.join(REPO, 'test/support/half-writer.mjs');
const CONSUMER = path.join(REPO, 'test/support/spool-consumer.mjs');

interface WorkerReport {
  writer: string;
  ok: number;
  failed: number;
  lastError: string;
}

let root: string;

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: 'load' });
  await addMember(new Team(root, 'load'), { name: 'sink' });
});

async function inboxTexts(): Promise<string[]> {
  const raw = await readFile(path.join(root, 'teams/load/inboxes/sink.json'), 'utf8');
  return InboxSchema.parse(JSON.parse(raw)).map((m) => m.text);
}

function checkPerWriterOrder(texts: string[], writers: number, perWriter: number): void {
  const next = new Map<string, number>();
  for (const t of texts) {
    const [w, i] = t.split(':');
    expect(Number(i)).toBe(next.get(w!) ?? 0);
    next.set(w!, Number(i) + 1);
  }
  for (let w = 0; w < writers; w++) expect(next.get(`w${w}`)).toBe(perWriter);
}

describe('inbox under concurrent writer processes', () => {
  it('16 writers x 100 appends: exactly 1600, no duplicates, per-writer order, always valid JSON', async () => {
    const file = path.join(root, 'teams/load/inboxes/sink.json');
    const reader = execa(process.execPath, [READER, file], { reject: false });
    endAfterThisTest(reader);
    await printedLine(reader, 'ready');
    const writers = Array.from({ length: 16 }, (_, w) =>
      execa(process.execPath, [WORKER, root, 'load', 'sink', `w${w}`, '100', '60000'], { reject: false }),
    );
    for (const w of writers) endAfterThisTest(w);
    const reports = (await Promise.all(writers)).map((r) => JSON.parse(String(r.stdout).trim()) as WorkerReport);
    reader.kill('SIGTERM');
    const readerOut = JSON.parse(String((await reader).stdout).trim().split('\n').pop()!) as { reads: number; badReads: number };

    expect(reports.map((r) => r.failed)).toEqual(Array(16).fill(0));
    const texts = await inboxTexts();
    expect(texts).toHaveLength(1600);
    expect(new Set(texts).size).toBe(1600);
    checkPerWriterOrder(texts, 16, 100);
    expect(readerOut.reads).toBeGreaterThan(10);
    expect(readerOut.badReads).toBe(0);
  }, 120_000);

  it('writers while the recipient consumes straight from the spool: each message taken once, per-writer order, none left', async () => {
    const consumer = execa(process.execPath, [CONSUMER, root, 'load', 'sink', '160'], { reject: false });
    endAfterThisTest(consumer, 'SIGTERM');
    await printedLine(consumer, 'ready');
    const writers = Array.from({ length: 4 }, (_, w) => execa(process.execPath, [WORKER, root, 'load', 'sink', `w${w}`, '40', '60000'], { reject: false }));
    for (const w of writers) endAfterThisTest(w);
    const reports = (await Promise.all(writers)).map((r) => JSON.parse(String(r.stdout).trim()) as WorkerReport);
    expect(reports.map((r) => r.failed)).toEqual(Array(4).fill(0));
    const { taken } = JSON.parse(String((await consumer).stdout).trim().split('\n').pop()!) as { taken: string[] };
    expect(taken).toHaveLength(160);
    expect(new Set(taken).size).toBe(160);
    checkPerWriterOrder(taken, 4, 40);
    const inbox = InboxSchema.parse(JSON.parse(await readFile(path.join(root, 'teams/load/inboxes/sink.json'), 'utf8')));
    expect([inbox.length, inbox.every((m) => m.read)]).toEqual([160, true]);
    expect(await readdir(path.join(root, 'teams/load/inboxes/sink.json.spool'))).toEqual([]);
  }, 60_000);

  it('a writer SIGKILLed while holding the lock: others continue after stale detection, nothing lost', async () => {
    const mailbox = new Mailbox({ team: new Team(root, 'load') });
    for (let i = 0; i < 5; i++) await mailbox.append('sink', { from: 'before', text: `before:${i}` });
    const file = mailbox.paths.inbox('sink');

    const holder = execa(process.execPath, [HOLDER, file], { reject: false });
    endAfterThisTest(holder);
    await printedLine(holder, 'locked');
    await expect(stat(lockPathFor(file))).resolves.toBeTruthy(); // really held
    const writers = Array.from({ length: 4 }, (_, w) => execa(process.execPath, [WORKER, root, 'load', 'sink', `w${w}`, '10'], { reject: false }));
    for (const w of writers) endAfterThisTest(w);
    holder.kill('SIGKILL');
    await holder;
    const started = Date.now();
    const reports = (await Promise.all(writers)).map((r) => JSON.parse(String(r.stdout).trim()) as WorkerReport);
    expect(reports.map((r) => [r.failed, r.lastError])).toEqual(Array(4).fill([0, '']));
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThan(8_000); // they did wait for the dead holder's lock to go stale (10 s)
    expect(waited).toBeLessThan(25_000);

    const texts = await inboxTexts();
    expect(texts.slice(0, 5)).toEqual(['before:0', 'before:1', 'before:2', 'before:3', 'before:4']);
    expect(texts).toHaveLength(45);
    checkPerWriterOrder(texts.slice(5), 4, 10);
    await expect(readFile(lockPathFor(file))).rejects.toThrow(); // lock released by the last writer
  }, 60_000);

  it('a reader that catches a non-atomic writer mid-write re-reads under the lock: every entry comes back, nothing is quarantined', async () => {
    const team = new Team(root, 'load');
    const reports: unknown[] = [];
    const mb = new Mailbox({ team, onCorrupt: (r) => reports.push(r) });
    for (const text of ['one', 'two', 'three']) await mb.append('sink', { from: 'team-lead', text });
    const file = mb.paths.inbox('sink');
    const full = path.join(root, 'full.json');
    await writeFile(full, await readFile(file, 'utf8'));

    const writer = execa('node', [HALF_WRITER, file, full]);
    endAfterThisTest(writer);
    await printedLine(writer, 'half'); // the inbox now holds a cut-off prefix, and its lock is held
    const read = await mb.read('sink').then(
      (ms) => ms.map((m) => m.text),
      (e: unknown) => `read failed: ${String(e)}`,
    );
    expect(read, 'what a read during the non-atomic write returned').toEqual(['one', 'two', 'three']);
    await writer;
    const kept = (await readdir(path.dirname(file))).filter((n) => n.includes('.corrupt-'));
    expect(kept, 'files set aside as corrupt').toEqual([]);
    expect(reports, 'corrupt reports').toEqual([]);
    expect(await inboxTexts()).toEqual(['one', 'two', 'three']);
  });
});
