// followInbox (SPEC §3.3 "Watching"): existing then new entries, written by another process; read
// entries too unless unreadOnly; consume mode; abort; a follower without a signal, returned, closes
// its watch; Claude Code's in-place writes wake it, another inbox's writes do not; the poll-only
// fallback at the interval given.
// Needs the built CLI (npm run build) for the writer process.
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { followInbox, Mailbox, type FollowOptions } from '../../src/mailbox/index.js';
import type { InboxMessage } from '../../src/protocol/index.js';
import { swarm } from '../support/cli.js';
import { activeHandles } from '../support/handles.js';
import { useTeamRoot } from '../support/team-root.js';
import { waitFor } from '../support/wait.js';
import { within } from '../support/within.js';
import { Team } from '../../src/team/team.js';

const TEAM = 't';
const DEADLINE = 20_000; // a deadline, not a wait: generous for a loaded machine (the writer is a child process starting meanwhile)
let root: string;
let mb: Mailbox;
const stops: (() => Promise<void>)[] = [];

useTeamRoot(TEAM, ['w1', 'w2'], (dir) => (root = dir));
beforeEach(() => {
  mb = new Mailbox({ team: new Team(root, TEAM) });
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A Mailbox that counts reads and consumes, so a test knows when a follower has looked at the inbox. */
class CountingMailbox extends Mailbox {
  looks = 0;
  override async read(name: string): Promise<InboxMessage[]> {
    const r = await super.read(name);
    this.looks++;
    return r;
  }
  override async consume(name: string, accept?: (m: InboxMessage) => boolean): Promise<InboxMessage[]> {
    const r = await super.consume(name, accept);
    this.looks++;
    return r;
  }
}

/**
 * Start following (the generator runs from the first next()); stopped (aborted, returned) after the
 * test. `started()` resolves once the follower has read the inbox, i.e. its watcher is open.
 */
function follow(name: string, opts: Omit<FollowOptions, 'signal'> = {}) {
  const ac = new AbortController();
  const box = new CountingMailbox({ team: new Team(root, TEAM) });
  const iter = followInbox(box, name, { ...opts, signal: ac.signal });
  stops.push(async () => {
    ac.abort();
    await iter.return(undefined);
  });
  const next = async (what: string): Promise<InboxMessage> => {
    const r = await within(iter.next(), DEADLINE, what);
    if (r.done) throw new Error(`follower ended before ${what}`);
    return r.value;
  };
  const started = async (): Promise<void> => {
    await waitFor(() => box.looks >= 1, DEADLINE, 'follower to start');
  };
  return { ac, iter, next, started, looks: () => box.looks };
}

/** Send from a separate OS process: the real `swarm send` (leader by default). */
async function sendFromChild(to: string, text: string, from?: string): Promise<void> {
  const r = await swarm(root, ['send', to, text, '--team', TEAM, ...(from ? ['--from', from] : [])]);
  expect(r.exitCode, r.stderr).toBe(0);
}

describe('followInbox', () => {
  it('observe mode yields existing entries, then ones appended by another process, without marking them read', async () => {
    await mb.append('w1', { from: 'w2', text: 'already there' });
    const f = follow('w1');
    expect((await f.next('existing entry')).text).toBe('already there');
    await sendFromChild('w1', 'from another process');
    const m = await f.next('entry from the child');
    expect(m).toMatchObject({ from: 'team-lead', text: 'from another process', read: false });
    await sendFromChild('w1', 'second', 'w2');
    expect((await f.next('second entry')).text).toBe('second');
    expect((await mb.unread('w1')).map((x) => x.text)).toEqual(['already there', 'from another process', 'second']);
  });

  it('observe mode with fromStart: false skips what was there when it started', async () => {
    await mb.append('w1', { from: 'w2', text: 'old' });
    const f = follow('w1', { fromStart: false });
    const first = f.iter.next();
    await f.started();
    await sendFromChild('w1', 'new');
    expect(await within(first, DEADLINE, 'new entry')).toMatchObject({ done: false, value: { text: 'new' } });
  });

  it('observe mode with unreadOnly skips entries already read', async () => {
    await mb.append('w2', { from: 'w1', text: 'read one' });
    await mb.consume('w2');
    await mb.append('w2', { from: 'w1', text: 'unread one' });
    const g = follow('w2', { unreadOnly: true });
    expect((await g.next('unread entry')).text).toBe('unread one');
    await sendFromChild('w2', 'later');
    expect((await g.next('later entry')).text).toBe('later');
  });

  it('consume mode yields each entry once and marks it read on disk', async () => {
    await mb.append('w1', { from: 'w2', text: 'one' });
    const f = follow('w1', { consume: true });
    expect((await f.next('first')).text).toBe('one');
    await sendFromChild('w1', 'two');
    const two = await f.next('second');
    expect(two).toMatchObject({ text: 'two', read: true });
    await waitFor(async () => (await mb.read('w1')).every((m) => m.read), DEADLINE, 'entries marked read');
    expect(await mb.consume('w1')).toEqual([]); // nothing left for anyone else
  });

  it('consume mode says it is taking from before its consume until each entry it took was handled', async () => {
    await mb.append('w1', { from: 'w2', text: 'one' });
    await mb.append('w1', { from: 'w2', text: 'two' });
    const said: string[] = [];
    const f = follow('w1', { consume: true, onTaking: (taking) => said.push(taking ? 'taking' : 'offered') });
    said.push(`handled ${(await f.next('the first entry')).text}`);
    said.push(`handled ${(await f.next('the second entry')).text}`);
    expect(said).toEqual(['taking', 'handled one', 'handled two']);
    const third = f.next('the third entry'); // asking for more: the batch was handled
    await waitFor(() => said.length === 4, DEADLINE, 'the end of the batch');
    expect(said.at(-1)).toBe('offered');
    await mb.append('w1', { from: 'w2', text: 'three' });
    said.push(`handled ${(await third).text}`);
    // (An empty cycle, woken by its own write, may come between: taking, then offered at once.)
    expect(said.slice(3).join(', ')).toMatch(/^offered(, taking, offered)*, taking, handled three$/);
  });

  it('abort ends a waiting iterator cleanly (done, no error)', async () => {
    const f = follow('w1');
    const pending = f.iter.next(); // waits: the inbox is empty
    f.ac.abort();
    expect(await within(pending, DEADLINE, 'end after abort')).toEqual({ done: true, value: undefined });
    expect(await f.iter.next()).toEqual({ done: true, value: undefined });
  });

  it('a for-await loop ends when aborted after some entries', async () => {
    await mb.append('w1', { from: 'w2', text: 'a' });
    const ac = new AbortController();
    const seen: string[] = [];
    const loop = (async () => {
      for await (const m of followInbox(mb, 'w1', { signal: ac.signal })) {
        seen.push(m.text);
        if (seen.length === 2) ac.abort();
      }
    })();
    await mb.append('w1', { from: 'w2', text: 'b' });
    await within(loop, DEADLINE, 'loop to end');
    expect(seen).toEqual(['a', 'b']);
  });

  it('an already-aborted signal yields nothing', async () => {
    await mb.append('w1', { from: 'w2', text: 'a' });
    const ac = new AbortController();
    ac.abort();
    const out: InboxMessage[] = [];
    for await (const m of followInbox(mb, 'w1', { signal: ac.signal })) out.push(m);
    expect(out).toEqual([]);
  });

  it('poll-only (no inotify) still delivers entries from another process', async () => {
    const f = follow('w1', { noWatch: true, pollMs: 20 });
    const first = f.next('polled entry');
    await f.started();
    await sendFromChild('w1', 'polled');
    expect((await first).text).toBe('polled');
    await sendFromChild('w1', 'polled again');
    expect((await f.next('second polled entry')).text).toBe('polled again');
  });

  it('noWatch really turns inotify off: with polling disabled too, only the watching follower sees the entry', async () => {
    const blind = follow('w1', { noWatch: true, pollMs: 0 });
    const watching = follow('w1', { pollMs: 0 });
    let blindGot: InboxMessage | undefined;
    void blind.iter.next().then((r) => {
      if (!r.done) blindGot = r.value;
    });
    const watched = watching.next('watched entry');
    await Promise.all([blind.started(), watching.started()]);
    await sendFromChild('w1', 'only inotify sees this');
    expect((await watched).text).toBe('only inotify sees this');
    // Had the blind follower a watcher, its event would have come with the other one's.
    await fs.readFile(mb.paths.inbox('w1'));
    expect(blindGot).toBeUndefined();
  });

  it("does not wake on another inbox's change: a follower of w1 reads nothing when w2's inbox is written", async () => {
    const subject = follow('w1', { pollMs: 0 });
    const control = follow('w2', { pollMs: 0 });
    void subject.iter.next();
    const controlled = control.next("w2's entry");
    await Promise.all([subject.started(), control.started()]);
    expect(subject.looks()).toBe(1);
    await sendFromChild('w2', 'for w2 only');
    expect((await controlled).text).toBe('for w2 only'); // the directory's events have been delivered
    await new Promise((r) => setTimeout(r, 200)); // time for the re-read a wake would have started
    expect(subject.looks()).toBe(1);
  });

  it('observe mode yields entries already read too: only unreadOnly skips them', async () => {
    await mb.append('w1', { from: 'w2', text: 'read one' });
    await mb.consume('w1');
    const f = follow('w1');
    expect(await f.next('the read entry')).toMatchObject({ text: 'read one', read: true });
  });

  it('a follower without a signal yields, and once returned its watch is closed', async () => {
    await mb.append('w1', { from: 'w2', text: 'a' });
    const watches = (): number => activeHandles('FSEventWrap');
    const iter = followInbox(mb, 'w1');
    expect((await within(iter.next(), DEADLINE, 'the entry')).value).toMatchObject({ text: 'a' });
    const following = watches();
    expect(following).toBeGreaterThanOrEqual(1);
    expect(await iter.return(undefined)).toEqual({ done: true, value: undefined });
    await expect.poll(watches).toBeLessThan(following); // a closed watch goes on the next turn
  });

  it("wakes on a write in place with inotify only, as Claude Code writes an inbox (no temp file)", async () => {
    const f = follow('w1', { pollMs: 0 });
    const first = f.next('entry written in place');
    await f.started();
    const entry = { from: 'team-lead', text: 'in place', timestamp: new Date().toISOString(), read: false };
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([entry]));
    expect((await first).text).toBe('in place');
  });

  it('polls at the interval it is given: with an hour, an append is not seen within the default second', async () => {
    const f = follow('w1', { noWatch: true, pollMs: 3_600_000 });
    let got: InboxMessage | undefined;
    void f.iter.next().then((r) => {
      if (!r.done) got = r.value;
    });
    await f.started();
    await mb.append('w1', { from: 'w2', text: 'not yet' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(got).toBeUndefined();
  });
});
