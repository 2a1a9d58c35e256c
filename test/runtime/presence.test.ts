// A teammate's presence in config.json (runtime/presence.ts): isActive follows its turns, but a turn
// never waits for the team's config lock to start (a hundred teammates given a broadcast would
// queue on it before their model requests); the turn's end waits for the write, a flip undone while
// it waited writes nothing, and a write that cannot be made is an error at the turn's end.
import { promises as fs } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { Presence } from '../../src/runtime/presence.js';
import { StatusReporter } from '../../src/runtime/status.js';
import type { TeammateState } from '../../src/protocol/status.js';
import { readTeamState } from '../../src/runtime/lead/team-state.js';
import type { Transcript } from '../../src/runtime/transcript.js';
import { addMember, createTeam, readTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { holdLock } from '../support/held-lock.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-presence-');

let team: Team;
let states: string[];
let notified: string[];
let presence: Presence;

beforeEach(async () => {
  await createTeam(root, { name: 't', cwd: root });
  team = new Team(root, 't');
  await addMember(team, { name: 'w', cwd: root });
  states = [];
  notified = [];
  presence = new Presence({
    team,
    name: 'w',
    pid: process.pid,
    mailbox: {
      spool: (to: string) => (states.push(`spooled for ${to}`), to),
      deliver: async (to: string) => void notified.push(`${to} after ${states.at(-1)}`),
    } as unknown as Mailbox,
    status: { setState: (s: string) => void states.push(s), flush: async () => void states.push('flushed') } as unknown as StatusReporter,
    transcript: { append: () => undefined } as unknown as Transcript,
  });
  await presence.start();
  await presence.idle('first turn');
});

const isActive = async (): Promise<boolean | undefined> => (await readTeam(team)).members.find((m) => m.name === 'w')?.isActive;

describe('Presence: isActive in config.json', () => {
  it('a turn starts while the config lock is held by someone else; isActive is true once it is free, false at the end, true again next turn', async () => {
    expect(await isActive()).toBe(false);
    const lock = await holdLock(team.paths.config);
    await presence.working(); // resolves with the lock still held
    expect(states.at(-1)).toBe('working');
    expect(await isActive()).toBe(false);
    lock.release();
    await lock.held;
    await expect.poll(isActive).toBe(true);
    await presence.idle('done');
    expect(await isActive()).toBe(false);
    // The notification is spooled before the status file says idle (written, not just set) and merged
    // after: a lead that reads "idle" finds the notification, and one woken by it reads "idle".
    expect(notified).toEqual(['team-lead after flushed', 'team-lead after flushed']);
    expect(states.slice(-3)).toEqual(['idle', 'spooled for team-lead', 'flushed']);
    await presence.working();
    await expect.poll(isActive).toBe(true);
  });

  it('a turn that ends while its isActive:true waits for the lock writes nothing at all', async () => {
    await fs.link(team.paths.config, `${team.paths.config}.seen`); // replaced: this name stays on the old file
    const lock = await holdLock(team.paths.config);
    await presence.working();
    const ended = presence.idle('short');
    lock.release();
    await lock.held;
    await ended;
    expect(await isActive()).toBe(false);
    expect((await fs.stat(team.paths.config)).nlink).toBe(2); // never replaced
  });

  it('a turn whose end cannot write isActive is an error there (after a second try), and the leader is not told it is idle', async () => {
    await presence.working();
    await expect.poll(isActive).toBe(true);
    await fs.writeFile(`${team.paths.config}.lock`, 'not a lock directory');
    await expect(presence.idle('done')).rejects.toThrow(/config\.json\.lock/);
    expect(notified).toEqual(['team-lead after flushed']); // the first turn's only
    await fs.rm(`${team.paths.config}.lock`);
    await presence.idle('done');
    expect(await isActive()).toBe(false);
  });

  it("at every moment of a turn's end, a lead that reads the teammate as not working finds its idle notification", async () => {
    // Real status file and inbox: what the agent lead's end check reads (runtime/lead/team-state.ts).
    const seen: string[] = [];
    const look = async (when: string): Promise<void> => {
      const state = await readTeamState(team);
      seen.push(`${when}: ${state.working.includes('w') ? 'working' : 'not working'}, ${state.unheard} unheard`);
    };
    const mailbox = new Mailbox({ team });
    const status = new StatusReporter({ file: team.paths.status('w'), name: 'w', agentId: 'w@t', pid: process.pid, heartbeatMs: 60_000 });
    await status.start();
    const real = new Presence({ team, name: 'w', pid: process.pid, mailbox, status, transcript: { append: () => undefined } as unknown as Transcript });
    await real.start();
    await real.working();
    await status.flush();
    // Look between each of the turn end's steps: the status write, the spool, the merge. A state set
    // is written only when flushed (the slowest a status write can be), so each look is certain.
    const flush = status.flush.bind(status);
    const setState = status.setState.bind(status);
    let set: TeammateState | undefined;
    status.setState = (state) => void (set = state);
    status.flush = async () => {
      await look('before the status write');
      if (set !== undefined) setState(set);
      await flush();
      await look('after it');
    };
    const deliver = mailbox.deliver.bind(mailbox);
    mailbox.deliver = async (s) => {
      const entry = await deliver(s);
      await look('merged');
      return entry;
    };
    await real.idle('done');
    status.flush = flush;
    status.setState = setState;
    await status.stop('idle');
    expect(seen).toEqual(['before the status write: working, 1 unheard', 'after it: not working, 1 unheard', 'merged: not working, 1 unheard']);
  });
});
