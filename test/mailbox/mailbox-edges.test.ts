// The mailbox's edges (mailbox.test.ts and spool.test.ts have the main paths): compaction's exact
// threshold and its rule that entries merged in the same cycle stay in the inbox, the archive's
// reader (blank and foreign lines, a line that is not JSON), the words of a one-entry report,
// which optional fields an entry carries and who signs, appendUnless with a spool to merge first,
// and the size limit.
import { promises as fs } from 'node:fs';
import { withFileLock } from '../../src/storage/lock.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/index.js';
import { spoolDirFor, spoolEntry } from '../../src/mailbox/spool.js';
import { MAX_MESSAGE_BYTES, type InboxMessage } from '../../src/protocol/index.js';
import type { CorruptReport } from '../../src/storage/index.js';
import { addMember, createTeam, Team } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
let team: Team;

useTempRoot((dir) => (root = dir), 'swarm-mailbox-edges-');
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  team = new Team(root, 't');
  for (const name of ['w1', 'w2']) await addMember(team, { name });
});

const inboxOf = async (mb: Mailbox, name: string): Promise<InboxMessage[]> => JSON.parse(await fs.readFile(mb.paths.inbox(name), 'utf8')) as InboxMessage[];
const archiveOf = async (mb: Mailbox, name: string): Promise<string[]> =>
  (await fs.readFile(mb.paths.archive(name), 'utf8').catch(() => '')).split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as InboxMessage).text);

describe('compaction', () => {
  it('archives once more read entries than the threshold pile up (3 > 2), not at the threshold (2)', async () => {
    const mb = new Mailbox({ team, compactThreshold: 2 });
    await mb.append('w1', { from: 'w2', text: 'a' });
    await mb.append('w1', { from: 'w2', text: 'b' });
    await mb.consume('w1');
    await mb.consume('w1'); // 2 read: kept
    expect(await archiveOf(mb, 'w1')).toEqual([]);
    await mb.append('w1', { from: 'w2', text: 'c' });
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['c']); // c is read now: 3 read
    expect(await archiveOf(mb, 'w1')).toEqual(['a', 'b', 'c']);
    expect(await inboxOf(mb, 'w1')).toEqual([]);
  });

  it('keeps entries merged from the spool in the same cycle in the inbox (read), archiving only the older ones', async () => {
    const mb = new Mailbox({ team, compactThreshold: 1 });
    await mb.append('w1', { from: 'w2', text: 'old-1' });
    await mb.append('w1', { from: 'w2', text: 'old-2' });
    // A sender that died after spooling: its message is merged by the next consume.
    const left = { ...mb.makeEntry({ from: 'w2', text: 'spooled' }) };
    spoolEntry(mb.paths.inbox('w1'), left, Date.now());
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['old-1', 'old-2', 'spooled']);
    expect(await archiveOf(mb, 'w1')).toEqual(['old-1', 'old-2']);
    expect((await inboxOf(mb, 'w1')).map((m) => [m.text, m.read])).toEqual([['spooled', true]]);
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]);
  });

  it('reads the archive back skipping blank and foreign lines, and names a line that is not JSON with the jq to inspect it', async () => {
    const mb = new Mailbox({ team });
    const a = mb.makeEntry({ from: 'w2', text: 'kept' });
    await fs.writeFile(mb.paths.archive('w1'), `${JSON.stringify(a)}\n\n   \n{"not":"a message"}\n`);
    expect((await mb.archived('w1')).map((m) => m.text)).toEqual(['kept']);
    await fs.appendFile(mb.paths.archive('w1'), '{half\n');
    const file = mb.paths.archive('w1');
    await expect(mb.archived('w1')).rejects.toMatchObject({ kind: 'corrupt', message: `${file} has a line that is not JSON; inspect it with 'jq -c . ${file}'` });
  });

  it('a torn last archive line (a crash mid-append) is not read, and the next compaction cuts it off instead of gluing onto it', async () => {
    const mb = new Mailbox({ team, compactThreshold: 0 });
    const file = mb.paths.archive('w1');
    await fs.writeFile(file, `${JSON.stringify(mb.makeEntry({ from: 'w2', text: 'before' }))}\n{"from":"w2","te`);
    expect((await mb.archived('w1')).map((m) => m.text)).toEqual(['before']);
    await mb.append('w1', { from: 'w2', text: 'after' });
    await mb.consume('w1');
    await mb.consume('w1'); // the read entry moves to the archive
    expect((await mb.archived('w1')).map((m) => m.text)).toEqual(['before', 'after']);
    expect((await fs.readFile(file, 'utf8')).endsWith('\n')).toBe(true);
  });
});

describe('entries', () => {
  it('carries color and summary only when given, and its own msg_id when given', () => {
    const mb = new Mailbox({ team, now: () => Date.parse('2026-12-05T00:00:00.000Z') });
    expect(mb.makeEntry({ from: 'w2', text: 'hi', color: '', summary: '', msgId: 'm-1' })).toEqual({
      from: 'w2',
      text: 'hi',
      timestamp: '2026-12-05T00:00:00.000Z',
      read: false,
      type: 'message',
      msgV: 1,
      msg_id: 'm-1',
    });
    expect(mb.makeEntry({ from: 'w2', text: 'hi', color: 'blue', summary: 'short' })).toMatchObject({ color: 'blue', summary: 'short' });
  });

  it('signs only what team-lead sends, with the signer it was given', () => {
    const signed: string[] = [];
    const mb = new Mailbox({ team, signLead: (e) => (signed.push(e.text), 'SIG') });
    expect(mb.makeEntry({ from: 'team-lead', text: 'lead' }).lead_sig).toBe('SIG');
    expect('lead_sig' in mb.makeEntry({ from: 'w2', text: 'worker' })).toBe(false);
    expect('lead_sig' in new Mailbox({ team }).makeEntry({ from: 'team-lead', text: 'unsigned' })).toBe(false);
    expect(signed).toEqual(['lead']);
  });

  it('refuses a message over the size limit, writing nothing', async () => {
    const mb = new Mailbox({ team });
    await expect(mb.append('w1', { from: 'w2', text: 'x'.repeat(MAX_MESSAGE_BYTES + 1) })).rejects.toMatchObject({
      kind: 'invalid_input',
      message: expect.stringMatching(/; nothing was written$/),
    });
    await expect(fs.stat(mb.paths.inbox('w1'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1'))).catch(() => [])).toEqual([]);
    await mb.append('w1', { from: 'w2', text: 'x'.repeat(MAX_MESSAGE_BYTES) });
  });

  it('reports a single malformed entry in the singular', async () => {
    const reports: CorruptReport[] = [];
    const mb = new Mailbox({ team, onCorrupt: (r) => reports.push(r) });
    const good = mb.makeEntry({ from: 'w2', text: 'good' });
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([good, 42]));
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['good']);
    expect(reports).toEqual([expect.objectContaining({ entries: 1, problem: expect.stringMatching(/^1 malformed entry \(first at \[1\]: /) })]);
  });
});

describe('appendUnless', () => {
  it('merges the spool first, so a spooled answer counts as already there, and writes nothing more', async () => {
    const mb = new Mailbox({ team });
    const answer = mb.makeEntry({ from: 'w2', text: 'answer' });
    spoolEntry(mb.paths.inbox('w1'), answer, Date.now());
    const r = await mb.appendUnless('w1', { from: 'team-lead', text: 'answer again' }, (entries) => entries.find((e) => e.text === 'answer'));
    expect(r).toEqual({ found: answer });
    expect((await inboxOf(mb, 'w1')).map((m) => m.text)).toEqual(['answer']);
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]);
  });

  it('appends after what the spool held when nothing makes it redundant', async () => {
    const mb = new Mailbox({ team });
    spoolEntry(mb.paths.inbox('w1'), mb.makeEntry({ from: 'w2', text: 'spooled' }), Date.now());
    const r = await mb.appendUnless('w1', { from: 'team-lead', text: 'new' }, () => undefined);
    expect('appended' in r && r.appended.text).toBe('new');
    expect((await inboxOf(mb, 'w1')).map((m) => m.text)).toEqual(['spooled', 'new']);
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]);
  });
});

describe('what takes the lock and what rewrites the inbox', () => {
  async function holdInboxLock(mb: Mailbox, name: string): Promise<{ release: () => void; held: Promise<void> }> {
    let release: (() => void) | undefined;
    const held = withFileLock(mb.paths.inbox(name), () => new Promise<void>((r) => (release = r)));
    await expect.poll(() => release !== undefined).toBe(true);
    return { release: release!, held };
  }
  const inode = async (mb: Mailbox, name: string): Promise<number> => (await fs.stat(mb.paths.inbox(name))).ino;

  it('a read of a clean inbox takes no lock: it answers while another process holds it', async () => {
    const mb = new Mailbox({ team });
    await mb.append('w1', { from: 'w2', text: 'hi' });
    const holder = await holdInboxLock(mb, 'w1');
    try {
      expect((await mb.read('w1')).map((m) => m.text)).toEqual(['hi']); // would wait for the holder otherwise
    } finally {
      holder.release();
      await holder.held;
    }
  });

  it("a corrupt inbox's re-read under the lock keeps the mailbox's lock settings", async () => {
    const mb = new Mailbox({ team, lock: { budgetMs: 300 } });
    await fs.writeFile(mb.paths.inbox('w1'), '[{"half');
    const holder = await holdInboxLock(mb, 'w1');
    try {
      await expect(mb.read('w1')).rejects.toMatchObject({ kind: 'lock_timeout', message: expect.stringContaining('no progress for 300 ms') });
    } finally {
      holder.release();
      await holder.held;
    }
  });

  it('a consume that changes nothing, and an appendUnless that finds its answer, leave the file as it is', async () => {
    const mb = new Mailbox({ team });
    await mb.append('w1', { from: 'w2', text: 'hi' });
    await mb.consume('w1');
    const before = await inode(mb, 'w1');
    expect(await mb.consume('w1')).toEqual([]);
    expect(await mb.appendUnless('w1', { from: 'team-lead', text: 'again' }, (entries) => entries[0])).toMatchObject({ found: { text: 'hi' } });
    expect(await inode(mb, 'w1')).toBe(before); // atomic writes make a new inode: none happened
  });

  it('a spooled message the accept filter passes over still lands in the inbox, unread', async () => {
    const mb = new Mailbox({ team });
    await mb.append('w1', { from: 'w2', text: 'seen' });
    await mb.consume('w1');
    spoolEntry(mb.paths.inbox('w1'), mb.makeEntry({ from: 'w2', text: 'for another reader' }), Date.now());
    expect(await mb.consume('w1', (m) => m.text !== 'for another reader')).toEqual([]);
    expect((await inboxOf(mb, 'w1')).map((m) => [m.text, m.read])).toEqual([
      ['seen', true],
      ['for another reader', false],
    ]);
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]);
  });

  it('a consume that only sets junk aside rewrites the inbox without it (the junk is kept aside once)', async () => {
    const reports: CorruptReport[] = [];
    const mb = new Mailbox({ team, onCorrupt: (r) => reports.push(r) });
    const read = { ...mb.makeEntry({ from: 'w2', text: 'old' }), read: true };
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([read, 'junk']));
    expect(await mb.consume('w1')).toEqual([]);
    expect(await inboxOf(mb, 'w1')).toEqual([read]);
    expect(await mb.consume('w1')).toEqual([]);
    expect(reports).toHaveLength(1);
    expect(reports[0]!.problem).toMatch(/^1 malformed entry \(first at \[1\]: \(entry\): /);
  });

  it('a message sent again with a msg_id already read is marked read, not delivered twice', async () => {
    const mb = new Mailbox({ team });
    const first = await mb.append('w1', { from: 'w2', text: 'once', msgId: 'same-id' });
    expect((await mb.consume('w1')).map((m) => m.msg_id)).toEqual([first.msg_id]);
    // Another writer (Claude Code writes the array itself) appends the same message again.
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([{ ...first, read: true }, { ...first, read: false }]));
    expect(await mb.consume('w1')).toEqual([]);
    expect((await inboxOf(mb, 'w1')).every((m) => m.read)).toBe(true);
  });

  it('counts only read entries toward compaction', async () => {
    const mb = new Mailbox({ team, compactThreshold: 2 });
    for (const text of ['a', 'b', 'c']) await mb.append('w1', { from: 'w2', text });
    expect((await mb.consume('w1', (m) => m.text === 'a')).map((m) => m.text)).toEqual(['a']); // 1 read, 2 unread
    expect(await archiveOf(mb, 'w1')).toEqual([]);
  });

  it('an inbox that cannot be read fails a send with that error, not as a lock timeout, and takes the message back', async () => {
    const mb = new Mailbox({ team });
    await fs.mkdir(mb.paths.inbox('w1'));
    await expect(mb.append('w1', { from: 'w2', text: 'hi' })).rejects.toMatchObject({ kind: 'io', message: `${mb.paths.inbox('w1')} is a directory, not a regular file; swarm does not read it: remove it (rmdir '${mb.paths.inbox('w1')}')` });
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]); // not delivered later, after the send failed
  });

  it('an inbox whose lock path is a plain file fails a send at once, naming it, and takes the message back', async () => {
    const mb = new Mailbox({ team });
    const lock = `${mb.paths.inbox('w1')}.lock`;
    await fs.writeFile(lock, '');
    await expect(mb.append('w1', { from: 'w2', text: 'hi' })).rejects.toMatchObject({ kind: 'io', message: `${lock} is an empty file, not a lock directory, so nobody can lock w1.json; remove it (swarm doctor --fix does), then try again` });
    expect(await fs.readdir(spoolDirFor(mb.paths.inbox('w1')))).toEqual([]);
    await fs.rm(lock);
    await mb.append('w1', { from: 'w2', text: 'again' });
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['again']);
  });

  it('refuses an entry of the wrong shape with the field and what to do', async () => {
    const mb = new Mailbox({ team });
    const bad = { from: 'w2', text: 42, timestamp: 'now', read: false } as unknown as InboxMessage;
    await expect(mb.append('w1', bad)).rejects.toMatchObject({ kind: 'invalid_input', message: expect.stringMatching(/^not an inbox message \(text: .+\); nothing was written$/) });
  });

  it('a null entry in the inbox neither breaks a merge nor hides the others', async () => {
    const reports: CorruptReport[] = [];
    const mb = new Mailbox({ team, onCorrupt: (r) => reports.push(r) });
    const good = mb.makeEntry({ from: 'w2', text: 'good' });
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([good, null]));
    spoolEntry(mb.paths.inbox('w1'), mb.makeEntry({ from: 'w2', text: 'spooled' }), Date.now());
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['good', 'spooled']);
    expect(reports).toEqual([expect.objectContaining({ entries: 1 })]);
  });
});


describe('an inbox file created empty (Claude Code creates it so before it locks it)', () => {
  it('reads as an empty inbox, is not moved aside, and an append fills it', async () => {
    const mb = new Mailbox({ team });
    const file = mb.paths.inbox('w1');
    await fs.mkdir(mb.paths.inboxes, { recursive: true });
    await fs.writeFile(file, '');
    expect(await mb.read('w1')).toEqual([]);
    expect(await mb.unread('w1')).toEqual([]);
    expect((await fs.readdir(mb.paths.inboxes)).filter((n) => n.includes('corrupt'))).toEqual([]);
    await mb.append('w1', { from: 'w2', text: 'hi' });
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['hi']);
  });
});
