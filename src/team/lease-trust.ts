// When swarm believes a leader lease (config.json `leadProcess`, team/lead-lease.ts): a record that
// names a process is only as good as the proof that the process is the one that wrote it. Without
// one, a lease naming pid 1 after a reboot, or any live process, would lock a team out for good.
//
// - A lease from another host: its pids cannot be checked from here, so its renewal decides. It
//   counts while renewed within STALE_RENEWAL_MS, and never when renewed (or claimed) more than
//   CLOCK_SKEW_MS in the future: a clock that far ahead, or a forged record, must not hold a lease
//   for as long as its date says (hosts sharing a root keep their clocks within that, e.g. NTP).
// - A swarm lease on this host (it has a `kind`) records the holder's identity (storage/pid.ts:
//   boot id, start time, command-line digest). It counts while its pid lives and is still that
//   process: same boot, same start time, same command line. Its age does not matter (a holder
//   stopped with ^Z keeps it): the process is checked, not its renewal.
// - A swarm lease on this host without an identity — written by an older swarm, or on a host with
//   no /proc (macOS), where nothing more than the pid can be read — counts while its pid lives and
//   it is renewed as a foreign one must be. A live holder renews every RENEW_MS; a lease left
//   behind (by a reboot, or naming a live pid that is not swarm) stops counting once it is stale.
// - A lease Claude Code wrote (no `kind`: `{pid, claimedAt}`, written once, never renewed, no
//   identity) counts while its pid lives, as before: nothing else in it can be checked, and a live
//   Claude Code leader must never lose team-lead's inbox to a console. `swarm doctor` reports one
//   whose pid has exited.
// The same rules judge a `--take-over` ask (its `at` standing for the renewal). Where there is no
// /proc (macOS) a lease has no identity, so the pid and the renewal are all that is checked. An
// identity proves the named pid is still the process that recorded it; a writer who copies another
// process's identity out of /proc can still forge one, as it can rewrite anything else in the
// team's files (0700: trusted to their owner, as everywhere in swarm).
import os from 'node:os';
import type { LeadLease, LeaseKind, ProcessIdentity } from '../protocol/config.js';
import { hasProcFs, isProcessAliveIn, processIdentityIn } from '../storage/pid.js';

/** How often the holder writes its renewal (each write wakes every console's config.json watch). */
export const RENEW_MS = 10_000;
/** A lease proved by its renewal alone (another host's, or one with no identity) is gone once its renewal is this old. */
export const STALE_RENEWAL_MS = 30_000;
/** How far in the future a renewal may lie (another host's clock running ahead) before it is refused. */
export const CLOCK_SKEW_MS = 10_000;

/** This process as a lease holder, and where it reads other processes from. */
export interface LeaseSelf {
  pid: number;
  kind: LeaseKind;
  host: string;
  /** Undefined where there is no /proc. */
  identity?: ProcessIdentity;
  procRoot: string;
}

export function leaseSelf(kind: LeaseKind, pid = process.pid, host = os.hostname(), procRoot = '/proc'): LeaseSelf {
  const identity = processIdentityIn(procRoot, pid);
  return { pid, kind, host, procRoot, ...(identity !== undefined ? { identity } : {}) };
}

/** What a lease or a take-over ask claims: a process, where, and when it last said so. */
export type Claim = Pick<LeadLease, 'pid' | 'host' | 'kind' | 'claimedAt' | 'renewedAt' | 'identity'>;

/** A `--take-over` ask as a claim: its `at` is its only renewal. */
export function askClaim(ask: NonNullable<LeadLease['takeOver']>): Claim {
  return { pid: ask.pid, kind: ask.kind, claimedAt: ask.at, ...(ask.host !== undefined ? { host: ask.host } : {}), ...(ask.identity !== undefined ? { identity: ask.identity } : {}) };
}

function sameIdentity(a: ProcessIdentity, b: ProcessIdentity): boolean {
  return a.bootId === b.bootId && a.startTicks === b.startTicks && a.cmd === b.cmd;
}

/** True when `claim` names this very process (not merely its pid, reused). */
export function isMine(claim: Claim, self: LeaseSelf): boolean {
  if (claim.pid !== self.pid || (claim.host ?? self.host) !== self.host) return false;
  return claim.identity === undefined || self.identity === undefined || sameIdentity(claim.identity, self.identity);
}

/** Why a claim proved by its renewal alone is not believed (undefined: it is). */
function staleness(claim: Claim, now: number): string | undefined {
  const last = Math.max(claim.claimedAt, claim.renewedAt ?? claim.claimedAt);
  if (last - now > CLOCK_SKEW_MS) return `it says it was renewed at ${new Date(last).toISOString()}, in the future (a clock far ahead, or a forged record)`;
  if (now - last >= STALE_RENEWAL_MS) return `it was last renewed ${Math.round((now - last) / 1000)} s ago (a live holder renews every ${RENEW_MS / 1000} s)`;
  return undefined;
}

/** Why the live process `pid` is not the one that recorded `recorded` (undefined: it is). */
function impostor(pid: number, recorded: ProcessIdentity, procRoot: string): string | undefined {
  const live = processIdentityIn(procRoot, pid);
  if (live === undefined) return hasProcFs(procRoot) ? `its process ${pid} has exited` : undefined; // no /proc here: the pid alone
  if (live.bootId !== recorded.bootId) return `it was claimed before this machine last booted (pid ${pid} is another process now)`;
  if (live.startTicks !== recorded.startTicks) return `pid ${pid} is another process now (it started at another time than the holder)`;
  if (live.cmd !== recorded.cmd) return `pid ${pid} runs another command now than the holder did`;
  return undefined;
}

/** Why swarm does not believe `claim` (see the header), or undefined when it does. */
export function whyUntrusted(claim: Claim, self: LeaseSelf, now = Date.now()): string | undefined {
  if (claim.host !== undefined && claim.host !== self.host) return staleness(claim, now);
  if (!isProcessAliveIn(self.procRoot, claim.pid)) return `its process ${claim.pid} has exited`;
  if (claim.kind === undefined) return undefined; // Claude Code's: its pid is all there is
  if (claim.identity === undefined) return staleness(claim, now);
  return impostor(claim.pid, claim.identity, self.procRoot);
}
