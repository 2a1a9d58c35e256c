// The leader lease in config.json: claimed when free, kept by a live holder (its unknown fields too),
// taken over once the holder's pid is gone (or, on another host, once its renewal is stale), handed
// over by a console when a live watcher asks, never by an agent lead; a keeper's tick notices. The
// holder renews, so a watcher on another host never takes over from it; a lease or a take-over ask
// no live process proves (pid 1 from before a reboot, a live `sleep`, a renewal dated 2100) locks
// nobody out and is handed nothing; a lease naming this pid from another process is not ours;
// doctor's clear removes only the unbelieved lease it saw. A keeper asks with takeOver, gives up at
// waitHolding's deadline, and on close waits for a tick under way before releasing. And each guard
// the mutation run found untested: how a holder is named, when a tick takes the lock, what a
// hand-over and an ask record (nothing undefined), onChange/onError and the timer, around close.
import { describe, expect, it } from 'vitest';
import { createTeam, readTeam, updateTeam } from '../../src/team/team-store.js';
import {
  claudeCodeHolds,
  clearUntrustedLease,
  describeHolder,
  LEASE_TICK_MS,
  LeaseKeeper,
  leaseSelf,
  needsSync,
  otherHolder,
  releaseLease,
  requestTakeOver,
  syncLease,
  type LeaseState,
} from '../../src/team/lead-lease.js';
import { RENEW_MS, STALE_RENEWAL_MS } from '../../src/team/lease-trust.js';
import type { LeadLease } from '../../src/protocol/config.js';
import { forgedLeases, YEAR_2100 } from '../support/forged-leases.js';
import { startSleeper } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';
import { writeDamaged } from '../support/damaged-file.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-lead-lease-');

const DEAD = 2 ** 22 + 12345; // no such process
// Two live processes: this test (the holder) and its parent (the watcher asking).
const holder = leaseSelf('console', process.pid, 'here');
const watcher = leaseSelf('console', process.ppid, 'here');

describe('the leader lease', () => {
  it('a live holder keeps it and its unknown fields; a dead or stale one loses it', async () => {
    const { team } = await createTeam(root, { name: 'l1' });
    await updateTeam(team, (c) => void (c.leadProcess = { pid: process.pid, claimedAt: 1, sessionId: 'claude-code' }));
    expect(await syncLease(team, watcher)).toEqual({ role: 'watcher', holder: { pid: process.pid, claimedAt: 1, sessionId: 'claude-code' } });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.pid, claimedAt: 1, sessionId: 'claude-code' });

    await updateTeam(team, (c) => void (c.leadProcess = { pid: DEAD, claimedAt: 1 }));
    expect(await syncLease(team, watcher, 5000)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.ppid, claimedAt: 5000, renewedAt: 5000, host: 'here', kind: 'console', identity: watcher.identity });

    // Another host's pid cannot be checked: its renewal decides.
    const now = Date.now();
    await updateTeam(team, (c) => void (c.leadProcess = { pid: DEAD, claimedAt: 1, host: 'there', renewedAt: now }));
    expect((await syncLease(team, watcher, now + 1000)).role).toBe('watcher');
    expect((await syncLease(team, watcher, now + STALE_RENEWAL_MS)).role).toBe('holder');
    await releaseLease(team, watcher);
    expect((await readTeam(team)).leadProcess).toBeUndefined();
  });

  it('a console holder hands over to a live asker; an agent lead refuses to', async () => {
    const { team } = await createTeam(root, { name: 'l2' });
    expect(await syncLease(team, holder)).toEqual({ role: 'holder' });
    expect((await requestTakeOver(team, watcher)).role).toBe('watcher');
    expect((await readTeam(team)).leadProcess?.takeOver?.pid).toBe(process.ppid);
    expect(await syncLease(team, holder)).toMatchObject({ role: 'watcher', holder: { pid: process.ppid, kind: 'console' } });
    expect(await syncLease(team, watcher)).toEqual({ role: 'holder' });

    await releaseLease(team, watcher);
    const run = leaseSelf('headless', process.pid, 'here');
    expect(await syncLease(team, run)).toEqual({ role: 'holder' });
    await expect(requestTakeOver(team, watcher)).rejects.toThrow(/led by pid \d+ \(a headless run\), which keeps team-lead's inbox/);
  });

  it("a watcher's keeper takes over within a tick once the holder is gone", async () => {
    const { team } = await createTeam(root, { name: 'l3' });
    await syncLease(team, holder);
    const changes: LeaseState[] = [];
    const keeper = await LeaseKeeper.open(team, watcher, { tickMs: 20, onChange: (s) => changes.push(s) });
    try {
      expect(keeper.state.role).toBe('watcher');
      await updateTeam(team, (c) => void (c.leadProcess!.pid = DEAD)); // the holder died
      await waitFor(() => keeper.holding, 2000, 'the take-over');
      await keeper.tick();
      expect(changes).toEqual([{ role: 'holder' }]); // once: a tick that changes nothing says nothing
      expect((await readTeam(team)).leadProcess?.pid).toBe(process.ppid);
    } finally {
      await keeper.close();
    }
    expect((await readTeam(team)).leadProcess).toBeUndefined(); // released on close
  });

  it('the lease holder renews, and a watcher on another host never takes over a live holder', async () => {
    const { team } = await createTeam(root, { name: 'l4' });
    let t = Date.now() - 3_600_000; // the keepers' clock, not the machine's
    const clock = (): number => t;
    const away = leaseSelf('console', process.ppid, 'there');
    const mine = await LeaseKeeper.open(team, holder, { tickMs: 3_600_000, clock }); // ticked by hand below
    const theirs = await LeaseKeeper.open(team, away, { tickMs: 3_600_000, clock });
    try {
      expect([mine.state.role, theirs.state.role]).toEqual(['holder', 'watcher']);
      expect((await readTeam(team)).leadProcess).toMatchObject({ claimedAt: t, renewedAt: t });
      const renewals = new Set<number>();
      for (let i = 0; i < (2 * STALE_RENEWAL_MS) / LEASE_TICK_MS; i++) {
        t += LEASE_TICK_MS;
        expect((await mine.tick()).role).toBe('holder');
        expect((await theirs.tick()).role, `at +${(i + 1) * LEASE_TICK_MS} ms`).toBe('watcher');
        const lease = (await readTeam(team)).leadProcess!;
        expect(t - lease.renewedAt!).toBeLessThan(RENEW_MS);
        renewals.add(lease.renewedAt!);
      }
      expect(renewals.size).toBe(1 + (2 * STALE_RENEWAL_MS) / RENEW_MS); // the claim, then one every RENEW_MS
    } finally {
      await theirs.close();
      await mine.close();
    }
  });

  it('a holder hands over on its next tick when asked, not only when a renewal is due', async () => {
    const { team } = await createTeam(root, { name: 'l5' });
    const t = Date.now();
    const mine = await LeaseKeeper.open(team, holder, { tickMs: 3_600_000, clock: () => t });
    try {
      await requestTakeOver(team, watcher, t);
      expect(await mine.tick()).toMatchObject({ role: 'watcher', holder: { pid: process.ppid, identity: watcher.identity } });
    } finally {
      await mine.close();
    }
  });

  it('a renewal dated in the future (the clock went back) is rewritten on the next tick; a lease handed over without an identity gets ours', async () => {
    const { team } = await createTeam(root, { name: 'l6' });
    const t = Date.now();
    const mine = await LeaseKeeper.open(team, holder, { tickMs: 3_600_000, clock: () => t });
    try {
      await updateTeam(team, (c) => void (c.leadProcess!.renewedAt = t + 60_000));
      await mine.tick();
      expect((await readTeam(team)).leadProcess?.renewedAt).toBe(t);
    } finally {
      await mine.close();
    }
    // An older swarm console handed it to us: no identity in it. Renewing (not claiming) adds ours.
    await updateTeam(team, (c) => void (c.leadProcess = { pid: process.pid, claimedAt: t - 5000, renewedAt: t - 5000, host: 'here', kind: 'console' }));
    expect(await syncLease(team, holder, t)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.pid, claimedAt: t - 5000, renewedAt: t, host: 'here', kind: 'console', identity: holder.identity });
  });

  it('a lease naming this pid that another process recorded (the pid reused) is not ours: claimed afresh, never released by us', async () => {
    const { team } = await createTeam(root, { name: 'l7' });
    const t = Date.now();
    const reused: LeadLease = { pid: process.pid, claimedAt: 1, renewedAt: t, host: 'here', kind: 'console', identity: { ...holder.identity!, startTicks: holder.identity!.startTicks - 1 } };
    await updateTeam(team, (c) => void (c.leadProcess = reused));
    await releaseLease(team, holder);
    expect((await readTeam(team)).leadProcess).toEqual(reused);
    expect(await syncLease(team, holder, t)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.pid, claimedAt: t, renewedAt: t, host: 'here', kind: 'console', identity: holder.identity });
  });

  it('a forged or stale lease locks nobody out: --take-over and a plain watcher claim it', async () => {
    for (const [i, [what, lease]] of (await forgedLeases('here')).entries()) {
      const { team } = await createTeam(root, { name: `forged-${i}` });
      await updateTeam(team, (c) => void (c.leadProcess = lease));
      const keeper = await LeaseKeeper.open(team, watcher, { takeOver: true, tickMs: 3_600_000 }); // swarm lead --take-over
      try {
        expect(keeper.state, what).toEqual({ role: 'holder' });
        expect((await readTeam(team)).leadProcess, what).toMatchObject({ pid: process.ppid, identity: watcher.identity });
      } finally {
        await keeper.close();
      }
      await updateTeam(team, (c) => void (c.leadProcess = lease));
      expect(await syncLease(team, watcher), what).toEqual({ role: 'holder' }); // swarm lead
    }
  });

  it('a take-over ask nothing proves is dropped, never handed the lease; a fresh one from another host is', async () => {
    const { team } = await createTeam(root, { name: 'l8' });
    const t = Date.now();
    const sleeper = await startSleeper();
    const asks: [string, NonNullable<LeadLease['takeOver']>][] = [
      ['pid 1 under an identity from before a reboot', { pid: 1, kind: 'console', host: 'here', at: t, identity: { ...watcher.identity!, bootId: 'an-earlier-boot' } }],
      ['a live sleep under a swarm identity', { pid: sleeper, kind: 'console', host: 'here', at: t, identity: watcher.identity! }],
      ['a live sleep with no identity, asked long ago', { pid: sleeper, kind: 'console', host: 'here', at: t - STALE_RENEWAL_MS }],
      ['another host, dated 2100', { pid: 4242, kind: 'console', host: 'there', at: YEAR_2100 }],
      ['another host, asked long ago', { pid: 4242, kind: 'console', host: 'there', at: t - STALE_RENEWAL_MS }],
    ];
    for (const [what, ask] of asks) {
      await syncLease(team, holder, t);
      await updateTeam(team, (c) => void (c.leadProcess!.takeOver = ask));
      expect(await syncLease(team, holder, t), what).toEqual({ role: 'holder' });
      const lease = (await readTeam(team)).leadProcess!;
      expect([lease.pid, lease.takeOver], what).toEqual([process.pid, undefined]);
    }
    await updateTeam(team, (c) => void (c.leadProcess!.takeOver = { pid: 4242, kind: 'console', host: 'there', at: t }));
    expect(await syncLease(team, holder, t)).toEqual({ role: 'watcher', holder: { pid: 4242, claimedAt: t, renewedAt: t, kind: 'console', host: 'there' } });
  });

  it('an agent lead keeps the lease: --take-over is refused, and an ask written anyway is dropped', async () => {
    const { team } = await createTeam(root, { name: 'l9' });
    const agent = leaseSelf('agent', process.pid, 'here');
    expect(await syncLease(team, agent)).toEqual({ role: 'holder' });
    await expect(requestTakeOver(team, watcher)).rejects.toThrow(/led by pid \d+ \(an agent lead in a console\), which keeps team-lead's inbox/);
    const t = Date.now();
    await updateTeam(team, (c) => void (c.leadProcess!.takeOver = { pid: process.ppid, kind: 'console', host: 'here', at: t, identity: watcher.identity! })); // an older swarm asked
    expect(await syncLease(team, agent, t)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toMatchObject({ pid: process.pid, kind: 'agent' });
    expect((await readTeam(team)).leadProcess?.takeOver).toBeUndefined();
  });

  it("Claude Code holds the lease while its kind-less lease names a live pid", async () => {
    const sleeper = await startSleeper();
    expect(claudeCodeHolds({ pid: sleeper, claimedAt: 1 })).toBe(true);
    expect(claudeCodeHolds({ pid: sleeper, claimedAt: 1, kind: 'console', renewedAt: Date.now() })).toBe(false); // swarm's, not Claude Code's
    expect(claudeCodeHolds({ pid: DEAD, claimedAt: 1 })).toBe(false);
    expect(claudeCodeHolds(undefined)).toBe(false);
  });

  it("doctor's clear removes an unbelieved lease only while it is the same record and still not believed", async () => {
    const { team } = await createTeam(root, { name: 'l10' });
    const t = Date.now();
    const dead: LeadLease = { pid: DEAD, claimedAt: t, renewedAt: t, host: 'here', kind: 'console' };
    await updateTeam(team, (c) => void (c.leadProcess = dead));
    expect(await clearUntrustedLease(team, dead, holder, t)).toEqual({ cleared: true });
    expect((await readTeam(team)).leadProcess).toBeUndefined();
    expect(await clearUntrustedLease(team, dead, holder, t)).toEqual({ cleared: false, why: 'it was already gone' });

    await updateTeam(team, (c) => void (c.leadProcess = { ...dead, renewedAt: t + 1 }));
    expect(await clearUntrustedLease(team, dead, holder, t)).toEqual({ cleared: false, why: `it changed meanwhile (now pid ${DEAD} (a console)); left alone` });
    expect((await readTeam(team)).leadProcess?.renewedAt).toBe(t + 1);

    // Seen stale at t + STALE_RENEWAL_MS; by the time of the fix (t + 1 s on the clock given) believed.
    const away: LeadLease = { pid: 4242, claimedAt: t, renewedAt: t, host: 'there', kind: 'console' };
    await updateTeam(team, (c) => void (c.leadProcess = away));
    expect(await clearUntrustedLease(team, away, holder, t + 1000)).toEqual({ cleared: false, why: 'its holder is believed now; left alone' });
    expect(await clearUntrustedLease(team, away, holder, t + STALE_RENEWAL_MS)).toEqual({ cleared: true });
  });

  it('a keeper opened with takeOver asks a live console holder and waits; waitHolding gives up at its deadline', async () => {
    const { team } = await createTeam(root, { name: 'l11' });
    await syncLease(team, holder); // a live console that will not tick here: it never hands over
    const keeper = await LeaseKeeper.open(team, watcher, { takeOver: true, tickMs: 3_600_000 });
    try {
      expect(keeper.state).toMatchObject({ role: 'watcher', holder: { pid: process.pid } });
      expect((await readTeam(team)).leadProcess?.takeOver).toMatchObject({ pid: process.ppid, host: 'here', identity: watcher.identity });
      expect(await keeper.waitHolding(100, 20)).toBe(false);
    } finally {
      await keeper.close();
    }
    expect((await readTeam(team)).leadProcess?.pid).toBe(process.pid); // not ours: left alone
  });

  it('a tick under way when the keeper closes changes nothing it reports, and leaves no lease behind', async () => {
    const { team } = await createTeam(root, { name: 'l12' });
    await syncLease(team, holder);
    const changes: LeaseState[] = [];
    const keeper = await LeaseKeeper.open(team, watcher, { tickMs: 3_600_000, onChange: (s) => changes.push(s) });
    expect(keeper.state.role).toBe('watcher');
    await updateTeam(team, (c) => void (c.leadProcess!.pid = DEAD)); // the holder died
    const ticking = keeper.tick(); // would take the lease over
    await keeper.close();
    expect((await ticking).role).toBe('watcher');
    expect(changes).toEqual([]);
    expect((await readTeam(team)).leadProcess).toBeUndefined();
  });

  it('names the holder: its host only when another, a kind-less lease as a leader', () => {
    expect(describeHolder({ pid: 7, claimedAt: 1, kind: 'console' }, 'here')).toBe('pid 7 (a console)');
    expect(describeHolder({ pid: 7, claimedAt: 1, kind: 'console', host: 'here' }, 'here')).toBe('pid 7 (a console)');
    expect(describeHolder({ pid: 7, claimedAt: 1, kind: 'headless', host: 'there' }, 'here')).toBe('pid 7 on there (a headless run)');
    expect(describeHolder({ pid: 7, claimedAt: 1 }, 'here')).toBe('pid 7 (a leader)');
  });

  it('a tick takes the config lock only for a claim, a renewal or hand-over due, or a clock gone back', () => {
    const t = Date.now();
    const mine: LeadLease = { pid: process.pid, claimedAt: t, renewedAt: t, host: 'here', kind: 'console', identity: holder.identity! };
    expect(needsSync(undefined, holder, t)).toBe(true); // nobody holds it
    expect(needsSync(mine, holder, t)).toBe(false); // renewed just now
    expect(needsSync(mine, holder, t + RENEW_MS - 1)).toBe(false);
    expect(needsSync(mine, holder, t + RENEW_MS)).toBe(true);
    expect(needsSync(mine, holder, t - 1)).toBe(true); // our clock went back
    expect(needsSync({ ...mine, takeOver: { pid: process.ppid, kind: 'console', host: 'here', at: t } }, holder, t)).toBe(true);
    expect(needsSync(mine, watcher, t)).toBe(false); // a live holder, watched
    expect(needsSync({ ...mine, pid: DEAD, identity: undefined }, watcher, t)).toBe(true); // its holder gone
  });

  it('a hand-over to an ask an older swarm wrote (no host, no identity) records only what it said', async () => {
    const { team } = await createTeam(root, { name: 'l13' });
    const t = Date.now();
    await syncLease(team, holder, t);
    await updateTeam(team, (c) => void (c.leadProcess!.takeOver = { pid: process.ppid, kind: 'console', at: t }));
    expect(await syncLease(team, holder, t)).toStrictEqual({ role: 'watcher', holder: { pid: process.ppid, claimedAt: t, renewedAt: t, kind: 'console' } });
  });

  it('with no identity of its own to read (no /proc), a holder renews without touching the recorded one, and asks without one', async () => {
    const { team } = await createTeam(root, { name: 'l14' });
    const t = Date.now();
    const bare = { ...holder, identity: undefined };
    await syncLease(team, holder, t);
    expect(await syncLease(team, bare, t + RENEW_MS)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.pid, claimedAt: t, renewedAt: t + RENEW_MS, host: 'here', kind: 'console', identity: holder.identity });

    const asker = { ...watcher, identity: undefined };
    const asked = await requestTakeOver(team, asker, t + RENEW_MS);
    expect(asked.role === 'watcher' && asked.holder.takeOver).toStrictEqual({ pid: process.ppid, kind: 'console', host: 'here', at: t + RENEW_MS });
  });

  it("--take-over of an agent lead is an 'exists' error; otherHolder reads the live holder that is not us", async () => {
    const { team } = await createTeam(root, { name: 'l15' });
    expect(await otherHolder(team, watcher)).toBeUndefined();
    await syncLease(team, leaseSelf('agent', process.pid, 'here'));
    await expect(requestTakeOver(team, watcher)).rejects.toMatchObject({ kind: 'exists' });
    expect(await otherHolder(team, watcher)).toMatchObject({ pid: process.pid, kind: 'agent' });
    expect(await otherHolder(team, holder)).toBeUndefined();
  });

  it("a keeper reports a change of role only, with the role before; a watcher's keeper is not holding", async () => {
    const { team } = await createTeam(root, { name: 'l16' });
    await syncLease(team, holder);
    const changes: [LeaseState, LeaseState][] = [];
    const keeper = await LeaseKeeper.open(team, watcher, { tickMs: 3_600_000, onChange: (now, before) => changes.push([now, before]) });
    try {
      expect(keeper.holding).toBe(false);
      await keeper.tick();
      expect(changes).toEqual([]);
      await updateTeam(team, (c) => void (c.leadProcess!.pid = DEAD)); // the holder died
      await keeper.tick();
      expect(keeper.holding).toBe(true);
      expect(changes).toEqual([[{ role: 'holder' }, { role: 'watcher', holder: expect.objectContaining({ pid: process.pid }) }]]);
    } finally {
      await keeper.close();
    }
  });

  it('a failed tick goes to onError and keeps the state; none after close, and without onError or onChange a tick still resolves', async () => {
    const { team } = await createTeam(root, { name: 'l17' });
    const errors: unknown[] = [];
    const quiet = await LeaseKeeper.open(team, holder, { tickMs: 3_600_000 });
    const keeper = await LeaseKeeper.open(team, watcher, { tickMs: 3_600_000, onError: (e) => errors.push(e) });
    try {
      await updateTeam(team, (c) => void (c.leadProcess!.pid = DEAD)); // watcher's keeper takes over: a change, and no onChange given
      expect(await keeper.tick()).toEqual({ role: 'holder' });
      expect(errors).toEqual([]);
      await writeDamaged(team.paths.config, '{ not json');
      expect(await keeper.tick()).toEqual({ role: 'holder' });
      expect(errors).toEqual([expect.objectContaining({ kind: 'corrupt' })]);
      expect(await quiet.tick()).toEqual({ role: 'holder' }); // its state from open: the failure reported to nobody
      const ticking = keeper.tick();
      await keeper.close();
      await ticking;
      expect(errors).toHaveLength(1);
    } finally {
      await keeper.close();
      await quiet.close();
    }
  });

  it("a keeper's timer ticks every tickMs until closed, and not once after", async () => {
    const { team } = await createTeam(root, { name: 'l18' });
    await syncLease(team, holder);
    let calls = 0;
    let closing: Promise<void> | undefined;
    const t = Date.now();
    const keeper = await LeaseKeeper.open(team, watcher, {
      tickMs: 1,
      clock: () => {
        if (++calls === 3) closing = Promise.resolve().then(() => keeper.close()); // once the second timer tick is under way: close waits for it
        return t;
      },
    });
    await waitFor(() => calls >= 3, LEASE_TICK_MS, 'two timer ticks'); // far sooner than LEASE_TICK_MS: tickMs is used
    await closing;
    // A timer of the same length set after close fires after any the keeper could have set (Node runs
    // equal timeouts in the order set): an ordering barrier, not a wait for something to happen.
    await new Promise((r) => setTimeout(r, 1));

    expect(calls).toBe(3);
  });

  it('waitHolding polls until the holder hands over, and a holding keeper is holding at once', async () => {
    const { team } = await createTeam(root, { name: 'l19' });
    const t = Date.now();
    const mine = await LeaseKeeper.open(team, holder, { tickMs: 3_600_000, clock: () => t });
    expect(await mine.waitHolding(0)).toBe(true);
    let calls = 0;
    const theirs = await LeaseKeeper.open(team, watcher, { takeOver: true, tickMs: 3_600_000, clock: () => (calls++, t) });
    try {
      const waiting = theirs.waitHolding(60_000, 1);
      await waitFor(() => calls >= 3, 5000, 'a second poll'); // open, then two ticks: the first one saw a watcher
      await mine.tick(); // hands over
      expect(await waiting).toBe(true);
    } finally {
      await theirs.close();
      await mine.close();
    }
  });
});
