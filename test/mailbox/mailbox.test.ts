// Inboxes (SPEC §3.3): append, addressing and broadcast, consume-once, accept filter, compaction to
// the archive, and corrupt inbox files (kept aside, never treated as empty).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BROADCAST_WIDTH, Mailbox, sendMessage, type NewMessage } from '../../src/mailbox/index.js';
import { isSwarmError, type InboxMessage } from '../../src/protocol/index.js';
import type { CorruptReport } from '../../src/storage/index.js';
import { addMember, createTeam } from '../../src/team/index.js';
import { listTree, modeOf } from '../support/fs-tree.js';
import { errorKind, useTeamRoot } from '../support/team-root.js';
import { Team } from '../../src/team/team.js';

const TEAM = 't';
let root: string;
let mb: Mailbox;

useTeamRoot(TEAM, ['w1', 'w2', 'Carol'], (dir) => (root = dir));
beforeEach(() => {
  mb = new Mailbox({ team: new Team(root, TEAM) });
});

async function rawInbox(name: string): Promise<InboxMessage[]> {
  return JSON.parse(await fs.readFile(mb.paths.inbox(name), 'utf8')) as InboxMessage[];
}
async function exists(p: string): Promise<boolean> {
  return fs.access(p).then(
    () => true,
    () => false,
  );
}
const msg = (text: string, from = 'team-lead'): NewMessage => ({ from, text });

describe('append', () => {
  it('creates the inbox as [] first, then appends a full entry (0600, pretty-printed)', async () => {
    expect(await exists(mb.paths.inbox('w1'))).toBe(false);
    const e = await mb.append('w1', { from: 'w2', text: 'hello', summary: 'greeting', color: 'green' });
    expect(e).toMatchObject({ from: 'w2', text: 'hello', read: false, summary: 'greeting', color: 'green', type: 'message', msgV: 1 });
    expect(e.msg_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
    expect(await rawInbox('w1')).toEqual([e]);
    expect(await modeOf(mb.paths.inbox('w1'))).toBe(0o600);
    expect(await fs.readFile(mb.paths.inbox('w1'), 'utf8')).toMatch(/^\[\n {2}\{\n {4}"from": "w2",/);
    expect(await exists(`${mb.paths.inbox('w1')}.lock`)).toBe(false); // lock released
  });

  it('keeps the order of appends, sequential and concurrent', async () => {
    for (let i = 0; i < 5; i++) await mb.append('w1', msg(`s${i}`));
    expect((await mb.read('w1')).map((m) => m.text)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    await Promise.all(Array.from({ length: 8 }, (_, i) => mb.append('w2', msg(`c${i}`))));
    const texts = (await mb.read('w2')).map((m) => m.text);
    expect(texts.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
  });

  it('signs entries from team-lead only, when a signer is given', async () => {
    const signed = new Mailbox({ team: new Team(root, TEAM), signLead: (e) => `sig:${e.msg_id}` });
    const a = await signed.append('w1', msg('from lead'));
    const b = await signed.append('w1', msg('from w2', 'w2'));
    expect(a.lead_sig).toBe(`sig:${a.msg_id}`);
    expect(b.lead_sig).toBeUndefined();
  });

  it('refuses a path-like recipient before touching the file system', async () => {
    const before = await listTree(root);
    for (const to of ['../x', 'a/b', '', 'x\u0000']) expect(await errorKind(mb.append(to, msg('x'))), to).toBe('invalid_name');
    expect(await listTree(root)).toEqual(before);
  });
});

describe('sendMessage', () => {
  it('to a non-member is an error and creates no inbox file', async () => {
    const before = await listTree(root);
    expect(await errorKind(sendMessage(mb, { to: 'ghost', text: 'hi' }))).toBe('not_found');
    expect(await errorKind(sendMessage(mb, { to: '../w1', text: 'hi' }))).toBe('not_found');
    expect(await errorKind(sendMessage(mb, { to: 'w1', from: 'ghost', text: 'hi' }))).toBe('not_found');
    expect(await errorKind(sendMessage(mb, { to: 'w1', text: '' }))).toBe('invalid_input');
    await expect(sendMessage(mb, { to: 'w1', text: '' })).rejects.toThrow(/^message text is empty; pass the text to send$/);
    expect(await listTree(root)).toEqual(before);
  });

  it('a broadcast that cannot reach one inbox still reaches the others, and its error names the one it missed', async () => {
    // w2's lock is a plain file (an odd entry): every append to w2 fails at once, saying so.
    await fs.writeFile(path.join(root, 'teams', TEAM, 'inboxes', 'w2.json.lock'), 'x');
    await expect(sendMessage(mb, { to: '*', text: 'all hands' })).rejects.toThrow(/^the message reached 2 of 3 recipients; not w2: /);
    for (const name of ['w1', 'Carol']) expect((await rawInbox(name)).map((e) => e.text)).toEqual(['all hands']);
  });

  it('a broadcast spools every copy before it delivers any: a recipient past the first batch is not held up by a busy inbox in it', async () => {
    const team = new Team(root, TEAM);
    const extra = Array.from({ length: BROADCAST_WIDTH + 2 }, (_, i) => `x${i + 1}`);
    for (const name of extra) await addMember(team, { name });
    const last = mb.paths.inbox(extra.at(-1)!);
    // w1's inbox is held the way a Claude Code writer holds it: its first batch cannot finish.
    const lock = `${mb.paths.inbox('w1')}.lock`;
    await fs.mkdir(lock);
    const sent = sendMessage(mb, { to: '*', text: 'all hands' });
    try {
      await expect.poll(async () => (await fs.readdir(`${last}.spool`).catch(() => [])).length, { timeout: 2000 }).toBe(1);
    } finally {
      await fs.rmdir(lock);
    }
    const r = await sent;
    expect(r.recipients).toHaveLength(3 + extra.length);
    for (const name of r.recipients) expect((await rawInbox(name)).map((e) => e.text), name).toEqual(['all hands']);
  });

  it('to a member (any case) appends one entry with the sender colour; default sender is team-lead', async () => {
    const r = await sendMessage(mb, { to: 'W1', text: 'hi', summary: 's' });
    expect(r.recipients).toEqual(['w1']);
    const [e] = await rawInbox('w1');
    expect(e).toMatchObject({ from: 'team-lead', text: 'hi', summary: 's', color: 'red', msg_id: r.msg_id });
    const r2 = await sendMessage(mb, { to: 'team-lead', from: 'carol', text: 'done' });
    expect(r2.recipients).toEqual(['team-lead']);
    expect((await rawInbox('team-lead'))[0]).toMatchObject({ from: 'Carol', color: 'yellow' });
  });

  it('"*" reaches everyone but the sender (case-insensitive), all with the same msg_id', async () => {
    const r = await sendMessage(mb, { to: '*', from: 'W2', text: 'standup' });
    expect(r.recipients.sort()).toEqual(['Carol', 'team-lead', 'w1']);
    expect(await exists(mb.paths.inbox('w2'))).toBe(false);
    for (const name of r.recipients) {
      const inbox = await rawInbox(name);
      expect(inbox).toHaveLength(1);
      expect(inbox[0]).toMatchObject({ from: 'w2', text: 'standup', msg_id: r.msg_id });
    }
    const fromLead = await sendMessage(mb, { to: '*', text: 'all' });
    expect(fromLead.recipients.sort()).toEqual(['Carol', 'w1', 'w2']);
  });

  it('"*" with nobody else in the team is an error', async () => {
    await createTeam(root, { name: 'solo' });
    const solo = new Mailbox({ team: new Team(root, 'solo') });
    expect(await errorKind(sendMessage(solo, { to: '*', text: 'anyone?' }))).toBe('invalid_input');
    await expect(sendMessage(solo, { to: '*', text: 'anyone?' })).rejects.toThrow(/^team "solo" has nobody but team-lead to broadcast to; spawn a teammate first$/);
  });
});

describe('consume', () => {
  it('marks entries read and returns each once, in order', async () => {
    for (const t of ['a', 'b', 'c']) await mb.append('w1', msg(t));
    const first = await mb.consume('w1');
    expect(first.map((m) => m.text)).toEqual(['a', 'b', 'c']);
    expect(first.every((m) => m.read)).toBe(true);
    expect((await rawInbox('w1')).map((m) => m.read)).toEqual([true, true, true]);
    expect(await mb.consume('w1')).toEqual([]);
    await mb.append('w1', msg('d'));
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['d']);
    expect(await mb.unread('w1')).toEqual([]);
  });

  it('a missing inbox consumes to nothing and is not created', async () => {
    expect(await mb.consume('w1')).toEqual([]);
    expect(await exists(mb.paths.inbox('w1'))).toBe(false);
    expect(await mb.read('w1')).toEqual([]);
  });

  it('the same msg_id appended twice is delivered once', async () => {
    const e = mb.makeEntry(msg('once'));
    await mb.append('w1', e);
    await mb.append('w1', { ...e });
    await mb.append('w1', msg('other'));
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['once', 'other']);
    expect((await rawInbox('w1')).every((m) => m.read)).toBe(true);
    await mb.append('w1', { ...e }); // a late duplicate of an already-read entry
    expect(await mb.consume('w1')).toEqual([]);
  });

  it('old-shape entries without msg_id are deduplicated by content', async () => {
    const old = { from: 'w2', text: 'x', timestamp: '2025-12-02T12:00:00.000Z', read: false };
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([old, old, { ...old, text: 'y' }]));
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['x', 'y']);
  });

  it('an accept filter leaves the other entries unread for another reader', async () => {
    for (const t of ['keep-1', 'take-1', 'keep-2', 'take-2']) await mb.append('w1', msg(t));
    const taken = await mb.consume('w1', (m) => m.text.startsWith('take'));
    expect(taken.map((m) => m.text)).toEqual(['take-1', 'take-2']);
    expect((await mb.unread('w1')).map((m) => m.text)).toEqual(['keep-1', 'keep-2']);
    expect((await mb.consume('w1')).map((m) => m.text)).toEqual(['keep-1', 'keep-2']);
  });

  it('beforeWrite hears what is taken while the inbox still says unread, under the lock; a failure takes nothing; nothing taken, no call', async () => {
    for (const t of ['a', 'b']) await mb.append('w1', msg(t));
    const heard: string[][] = [];
    const taken = await mb.consume('w1', undefined, async (entries) => {
      heard.push(entries.map((m) => m.text));
      expect((await rawInbox('w1')).map((m) => m.read)).toEqual([false, false]); // the write-ahead comes first
      expect(await exists(`${mb.paths.inbox('w1')}.lock`)).toBe(true);
    });
    expect(taken.map((m) => m.text)).toEqual(['a', 'b']);
    expect(heard).toEqual([['a', 'b']]);
    await mb.consume('w1', undefined, () => Promise.reject(new Error('no call when nothing is taken')));
    await mb.append('w1', msg('c'));
    await expect(mb.consume('w1', undefined, () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect((await mb.unread('w1')).map((m) => m.text)).toEqual(['c']);
  });

  it('past the threshold, read entries move to <name>.archive.jsonl and none is lost', async () => {
    const small = new Mailbox({ team: new Team(root, TEAM), compactThreshold: 5 });
    const sent: string[] = [];
    const delivered: string[] = [];
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 4; i++) {
        const t = `m${round}-${i}`;
        sent.push(t);
        await small.append('w1', msg(t));
      }
      if (round === 1) await small.append('w1', msg('left-unread', 'w2'));
      delivered.push(...(await small.consume('w1', (m) => m.text !== 'left-unread')).map((m) => m.text));
    }
    expect(delivered).toEqual(sent);
    const inbox = await rawInbox('w1');
    const archive = (await fs.readFile(small.paths.archive('w1'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as InboxMessage);
    expect(await modeOf(small.paths.archive('w1'))).toBe(0o600);
    expect(path.basename(small.paths.archive('w1'))).toBe('w1.archive.jsonl');
    expect(archive.length).toBeGreaterThan(0);
    expect(archive.every((m) => m.read)).toBe(true);
    expect(inbox.filter((m) => m.read).length).toBeLessThanOrEqual(5);
    expect(inbox.find((m) => m.text === 'left-unread')?.read).toBe(false);
    // inbox + archive = every message, each exactly once
    const all = [...archive, ...inbox].map((m) => m.text).sort();
    expect(all).toEqual([...sent, 'left-unread'].sort());
    expect((await small.archived('w1')).map((m) => m.text)).toEqual(archive.map((m) => m.text));
  });

  it('below the threshold nothing is archived', async () => {
    const small = new Mailbox({ team: new Team(root, TEAM), compactThreshold: 5 });
    for (let i = 0; i < 5; i++) await small.append('w1', msg(`m${i}`));
    await small.consume('w1');
    expect(await exists(small.paths.archive('w1'))).toBe(false);
    expect(await rawInbox('w1')).toHaveLength(5);
    expect(await small.archived('w1')).toEqual([]);
  });

  it('clear empties an inbox', async () => {
    await mb.append('w1', msg('x'));
    await mb.clear('w1');
    expect(await rawInbox('w1')).toEqual([]);
  });
});

describe('a corrupt inbox', () => {
  const BYTES = '[{"from": "w2", "text": "half a mess';

  async function keptFiles(name: string): Promise<string[]> {
    return (await fs.readdir(mb.paths.inboxes)).filter((f) => f.startsWith(`${name}.json.corrupt-`));
  }

  it('on append: kept aside as .corrupt-<time> with its bytes, reported, and a fresh inbox holds the new message', async () => {
    await fs.writeFile(mb.paths.inbox('w1'), BYTES);
    const reports: CorruptReport[] = [];
    const watched = new Mailbox({ team: new Team(root, TEAM), onCorrupt: (r) => reports.push(r) });
    const e = await watched.append('w1', msg('after'));
    const kept = await keptFiles('w1');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^w1\.json\.corrupt-\d{13}$/);
    expect(await fs.readFile(path.join(mb.paths.inboxes, kept[0]!), 'utf8')).toBe(BYTES);
    expect(await rawInbox('w1')).toEqual([e]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ file: mb.paths.inbox('w1'), keptAs: path.join(mb.paths.inboxes, kept[0]!) });
    expect(reports[0]!.problem).toMatch(/invalid JSON/);
  });

  it('a wrong shape (valid JSON, not an array of entries) is corrupt too', async () => {
    await fs.writeFile(mb.paths.inbox('w1'), '{"messages": []}');
    const onCorrupt = vi.fn();
    await new Mailbox({ team: new Team(root, TEAM), onCorrupt }).append('w1', msg('x'));
    expect(onCorrupt).toHaveBeenCalledOnce();
    expect(await keptFiles('w1')).toHaveLength(1);
  });

  it('two corruptions keep two files (never overwrite an earlier one)', async () => {
    const quiet = new Mailbox({ team: new Team(root, TEAM), onCorrupt: () => undefined });
    await fs.writeFile(mb.paths.inbox('w1'), 'one');
    await quiet.append('w1', msg('x'));
    await fs.writeFile(mb.paths.inbox('w1'), 'two');
    await quiet.append('w1', msg('y'));
    const kept = await keptFiles('w1');
    expect(kept).toHaveLength(2);
    const contents = await Promise.all(kept.map((f) => fs.readFile(path.join(mb.paths.inboxes, f), 'utf8')));
    expect(contents.sort()).toEqual(['one', 'two']);
  });

  it('read() throws "corrupt" and keeps the bytes', async () => {
    await fs.writeFile(mb.paths.inbox('w1'), BYTES);
    const err = await mb.read('w1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSwarmError(err, 'corrupt')).toBe(true);
    const kept = await keptFiles('w1');
    expect(kept).toHaveLength(1);
    expect(await fs.readFile(path.join(mb.paths.inboxes, kept[0]!), 'utf8')).toBe(BYTES);
    expect((err as Error).message).toContain(kept[0]!);
  });
});

describe('one malformed entry never hides the others', () => {
  const JUNK = ['garbage', { from: 7, text: 'wrong types' }];

  async function keptFiles(name: string): Promise<string[]> {
    return (await fs.readdir(mb.paths.inboxes)).filter((f) => f.startsWith(`${name}.json.corrupt-`));
  }

  async function inboxWithJunk(): Promise<InboxMessage[]> {
    const a = mb.makeEntry(msg('first'));
    const b = mb.makeEntry(msg('second'));
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([a, JUNK[0], b, JUNK[1]]));
    return [a, b];
  }

  it('read() returns the valid messages, moves the bad entries to .corrupt-<time>, reports once, keeps the rest', async () => {
    const good = await inboxWithJunk();
    const reports: CorruptReport[] = [];
    const watched = new Mailbox({ team: new Team(root, TEAM), onCorrupt: (r) => reports.push(r) });
    expect(await watched.read('w1')).toEqual(good);
    expect(await rawInbox('w1')).toEqual(good); // rewritten without the junk
    const kept = await keptFiles('w1');
    expect(kept).toHaveLength(1);
    expect(JSON.parse(await fs.readFile(path.join(mb.paths.inboxes, kept[0]!), 'utf8'))).toEqual(JUNK);
    expect(reports).toEqual([expect.objectContaining({ file: mb.paths.inbox('w1'), entries: 2, keptAs: path.join(mb.paths.inboxes, kept[0]!) })]);
    expect(reports[0]!.problem).toMatch(/^2 malformed entries \(first at \[1\]/);
    expect(await watched.read('w1')).toEqual(good);
    expect(reports).toHaveLength(1); // nothing left to report
  });

  it('consume() delivers the valid unread messages and sets the junk aside', async () => {
    const good = await inboxWithJunk();
    const quiet = new Mailbox({ team: new Team(root, TEAM), onCorrupt: () => undefined });
    expect((await quiet.consume('w1')).map((m) => m.text)).toEqual(good.map((m) => m.text));
    expect((await rawInbox('w1')).map((m) => [m.text, m.read])).toEqual([
      ['first', true],
      ['second', true],
    ]);
    expect(await keptFiles('w1')).toHaveLength(1);
  });

  it('append() refuses a malformed entry and writes nothing', async () => {
    await mb.append('w1', msg('ok'));
    const before = await fs.readFile(mb.paths.inbox('w1'), 'utf8');
    const bad = { from: 'w2', text: 42, timestamp: 'now', read: false } as unknown as InboxMessage;
    expect(await errorKind(mb.append('w1', bad))).toBe('invalid_input');
    expect(await fs.readFile(mb.paths.inbox('w1'), 'utf8')).toBe(before);
  });
});
