// Which leader lease swarm believes (team/lease-trust.ts), judged against a proc file system the
// test writes (its pids real, so kill(0) reaches them: this process and a `sleep` it starts) and
// against this machine's /proc: a swarm lease while its pid is still the process that recorded it,
// whatever its age; one with no identity, or from another host, while freshly renewed and never
// from the future; Claude Code's while its pid lives. And which lease is this process's own, and
// the records leaseSelf and askClaim build.
import { describe, expect, it } from 'vitest';
import type { LeadLease } from '../../src/protocol/config.js';
import { processIdentityIn } from '../../src/storage/pid.js';
import { askClaim, CLOCK_SKEW_MS, isMine, leaseSelf, STALE_RENEWAL_MS, whyUntrusted, type LeaseSelf } from '../../src/team/lease-trust.js';
import { fakeProc } from '../support/fake-proc.js';
import { YEAR_2100 } from '../support/forged-leases.js';
import { deadPid, startSleeper } from '../support/team-fixture.js';


const NOW = Date.UTC(2030, 0, 1);
const self = (procRoot: string): LeaseSelf => ({ pid: 1_000_000, kind: 'console', host: 'here', procRoot });

describe('a swarm lease on this host', () => {
  it('is believed while its pid is the process that recorded it, however long ago it was renewed', async () => {
    const proc = await fakeProc({ [process.pid]: { startTicks: 500, cmdline: ['node', '/opt/swarm/bin/swarm.js', 'lead'] } }, { bootId: 'boot-now' });
    const identity = processIdentityIn(proc, process.pid)!;
    const lease: LeadLease = { pid: process.pid, claimedAt: 0, renewedAt: 0, host: 'here', kind: 'console', identity };
    expect(whyUntrusted(lease, self(proc), NOW)).toBeUndefined();
    expect(whyUntrusted({ ...lease, host: undefined }, self(proc), NOW)).toBeUndefined(); // no host: this one's
  });

  it('is not once its pid is another process: an earlier boot, another start time, another command line, or gone', async () => {
    const proc = await fakeProc({ [process.pid]: { startTicks: 500, cmdline: ['node', '/opt/swarm/bin/swarm.js', 'lead'] } }, { bootId: 'boot-now' });
    const identity = processIdentityIn(proc, process.pid)!;
    const lease: LeadLease = { pid: process.pid, claimedAt: NOW, renewedAt: NOW, host: 'here', kind: 'console', identity };
    const why = (recorded: Partial<typeof identity>): string | undefined => whyUntrusted({ ...lease, identity: { ...identity, ...recorded } }, self(proc), NOW);
    expect(why({ bootId: 'boot-before' })).toBe(`it was claimed before this machine last booted (pid ${process.pid} is another process now)`);
    expect(why({ startTicks: 499 })).toBe(`pid ${process.pid} is another process now (it started at another time than the holder)`);
    expect(why({ cmd: '0123456789abcdef' })).toBe(`pid ${process.pid} runs another command now than the holder did`);
    const gone = await deadPid();
    expect(whyUntrusted({ ...lease, pid: gone }, self(proc), NOW)).toBe(`its process ${gone} has exited`);
    // Alive by its stat, but its identity unreadable (it exited between the two reads): gone.
    const half = await fakeProc({ [process.pid]: { startTicks: 500 } }, { bootId: 'boot-now' });
    expect(whyUntrusted(lease, self(half), NOW)).toBe(`its process ${process.pid} has exited`);
  });

  it('on this machine: a pid 1 recorded before a reboot, or a live sleep under a swarm identity, is not believed', async () => {
    const me = leaseSelf('console', process.pid, 'here');
    const sleeper = await startSleeper();
    const lease: LeadLease = { pid: sleeper, claimedAt: Date.now(), renewedAt: Date.now(), host: 'here', kind: 'console', identity: me.identity! };
    expect(whyUntrusted(lease, me)).toMatch(new RegExp(`^pid ${sleeper} is another process now`));
    expect(whyUntrusted({ ...lease, pid: 1, identity: { ...me.identity!, bootId: 'an-earlier-boot' } }, me)).toBe('it was claimed before this machine last booted (pid 1 is another process now)');
    expect(whyUntrusted({ ...lease, identity: processIdentityIn('/proc', sleeper)! }, me)).toBeUndefined(); // the sleep's own: it is that process
  });

  it('with no /proc here (macOS), a lease carrying an identity is judged by its pid alone', async () => {
    const proc = await fakeProc({}, { self: false });
    const lease: LeadLease = { pid: process.pid, claimedAt: 0, host: 'here', kind: 'agent', identity: { bootId: 'b', startTicks: 1, cmd: 'c' } };
    expect(whyUntrusted(lease, self(proc), NOW)).toBeUndefined();
  });

  it('with no identity (an older swarm, or no /proc) is believed while its pid lives and its renewal is fresh, never from the future', async () => {
    const proc = await fakeProc({ [process.pid]: {} });
    const lease = (renewedAt: number, pid = process.pid): LeadLease => ({ pid, claimedAt: NOW - 60_000, renewedAt, host: 'here', kind: 'console' });
    expect(whyUntrusted(lease(NOW - STALE_RENEWAL_MS + 1), self(proc), NOW)).toBeUndefined();
    expect(whyUntrusted(lease(NOW - STALE_RENEWAL_MS), self(proc), NOW)).toBe('it was last renewed 30 s ago (a live holder renews every 10 s)');
    expect(whyUntrusted(lease(NOW + CLOCK_SKEW_MS), self(proc), NOW)).toBeUndefined();
    expect(whyUntrusted(lease(YEAR_2100), self(proc), NOW)).toBe('it says it was renewed at 2100-01-01T00:00:00.000Z, in the future (a clock far ahead, or a forged record)');
    const gone = await deadPid();
    expect(whyUntrusted(lease(NOW, gone), self(proc), NOW)).toBe(`its process ${gone} has exited`);
  });
});

describe("Claude Code's lease (no kind)", () => {
  it('is believed while its pid lives, whatever its dates; not once it exited', async () => {
    const proc = await fakeProc({ [process.pid]: {} });
    for (const claimedAt of [0, YEAR_2100]) expect(whyUntrusted({ pid: process.pid, claimedAt }, self(proc), NOW)).toBeUndefined();
    const gone = await deadPid();
    expect(whyUntrusted({ pid: gone, claimedAt: NOW }, self('/proc'), NOW)).toBe(`its process ${gone} has exited`);
  });
});

describe('a lease from another host', () => {
  it('is believed while renewed within STALE_RENEWAL_MS, whatever its pid is here', async () => {
    const gone = await deadPid();
    const lease = (renewedAt: number | undefined, pid = gone): LeadLease => ({ pid, claimedAt: NOW - 60_000, ...(renewedAt !== undefined ? { renewedAt } : {}), host: 'there', kind: 'console' });
    expect(whyUntrusted(lease(NOW), self('/proc'), NOW)).toBeUndefined();
    expect(whyUntrusted(lease(NOW - STALE_RENEWAL_MS + 1), self('/proc'), NOW)).toBeUndefined();
    expect(whyUntrusted(lease(NOW - STALE_RENEWAL_MS), self('/proc'), NOW)).toMatch(/^it was last renewed 30 s ago/);
    expect(whyUntrusted(lease(NOW - STALE_RENEWAL_MS, process.pid), self('/proc'), NOW)).toMatch(/^it was last renewed/); // a live pid here is not it
    expect(whyUntrusted(lease(undefined), self('/proc'), NOW)).toMatch(/^it was last renewed 60 s ago/); // no renewal: its claim
  });

  it('is never believed renewed, or claimed, beyond CLOCK_SKEW_MS in the future', () => {
    const lease: LeadLease = { pid: 4242, claimedAt: NOW, renewedAt: NOW, host: 'there', kind: 'console' };
    expect(whyUntrusted({ ...lease, renewedAt: NOW + CLOCK_SKEW_MS }, self('/proc'), NOW)).toBeUndefined();
    expect(whyUntrusted({ ...lease, renewedAt: NOW + CLOCK_SKEW_MS + 1 }, self('/proc'), NOW)).toMatch(/in the future \(a clock far ahead, or a forged record\)$/);
    expect(whyUntrusted({ ...lease, renewedAt: YEAR_2100 }, self('/proc'), NOW)).toMatch(/^it says it was renewed at 2100-01-01T00:00:00.000Z, in the future/);
    expect(whyUntrusted({ ...lease, claimedAt: YEAR_2100 }, self('/proc'), NOW)).toMatch(/^it says it was renewed at 2100-01-01T00:00:00.000Z, in the future/);
  });
});

describe('isMine', () => {
  it('is this very process: its pid, on this host (no host: this one), and its identity where both record one', () => {
    const me: LeaseSelf = { pid: 7, kind: 'console', host: 'here', procRoot: '/proc', identity: { bootId: 'b', startTicks: 5, cmd: 'c' } };
    const lease: LeadLease = { pid: 7, claimedAt: 0, host: 'here', kind: 'console', identity: { bootId: 'b', startTicks: 5, cmd: 'c' } };
    expect(isMine(lease, me)).toBe(true);
    expect(isMine({ ...lease, host: undefined }, me)).toBe(true);
    expect(isMine({ ...lease, identity: undefined }, me)).toBe(true); // an older swarm handed it over
    expect(isMine(lease, { ...me, identity: undefined })).toBe(true);
    expect(isMine({ ...lease, pid: 8 }, me)).toBe(false);
    expect(isMine({ ...lease, host: 'there' }, me)).toBe(false);
    for (const other of [{ bootId: 'a' }, { startTicks: 4 }, { cmd: 'd' }]) expect(isMine({ ...lease, identity: { ...lease.identity!, ...other } }, me), JSON.stringify(other)).toBe(false);
  });
});

describe('the records it builds', () => {
  it('leaseSelf and askClaim carry an identity and a host only where there is one', async () => {
    const noProc = await fakeProc({}, { self: false });
    expect(leaseSelf('console', process.pid, 'here', noProc)).toStrictEqual({ pid: process.pid, kind: 'console', host: 'here', procRoot: noProc });
    const identity = { bootId: 'b', startTicks: 5, cmd: 'c' };
    expect(askClaim({ pid: 7, kind: 'console', at: NOW })).toStrictEqual({ pid: 7, kind: 'console', claimedAt: NOW });
    expect(askClaim({ pid: 7, kind: 'console', host: 'there', at: NOW, identity })).toStrictEqual({ pid: 7, kind: 'console', claimedAt: NOW, host: 'there', identity });
  });
});
