// The leader lease (config.json `leadProcess`, docs/protocol.md#lead-lease): the one process that takes delivery of
// team-lead's inbox and is the team's leader — a console (`swarm lead`), an agent lead in a console
// (`swarm run`, `swarm lead --agent`), a headless run (`swarm run -p`) or the MCP server of a Claude Code lead (`swarm mcp`). Every other console
// watches: it follows the inbox without consuming it.
//
// Every change is made under the config lock (updateTeam). A claim records the holder's identity
// (team/lease-trust.ts: which lease is believed, and why not). The holder renews `renewedAt` every
// RENEW_MS (LeaseKeeper, an unref'd timer), and at once when its renewal lies in the future (its
// clock went back); a watcher's tick takes the lease over once the lease is no longer believed.
// `swarm lead --take-over` writes `takeOver` (with the asker's identity) into the record; a console
// holder hands the lease to a believable asker on its next tick and watches from then on. An agent
// lead (agent, headless, mcp: keepsInbox) never hands over: its conversation needs every message. Unknown fields
// (Claude Code writes `leadProcess` too) are kept by the loose schema.
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import type { LeadLease } from '../protocol/config.js';
import { systemClock, type Clock } from '../protocol/ids.js';
import { SwarmError } from '../protocol/errors.js';
import { askClaim, isMine, leaseSelf, RENEW_MS, whyUntrusted, type LeaseSelf } from './lease-trust.js';
import { readTeam, updateTeam } from './team-store.js';
import type { Team } from './team.js';

export { leaseSelf, type LeaseSelf } from './lease-trust.js';

/** How often the holder looks for a take-over request and a watcher checks the holder (a read). */
export const LEASE_TICK_MS = 2000;

export type LeaseState = { role: 'holder' } | { role: 'watcher'; holder: LeadLease };

/** The believed holder of `lease` other than `self`, if any. */
export function liveHolder(lease: LeadLease | undefined, self: LeaseSelf, now = Date.now()): LeadLease | undefined {
  if (lease === undefined || isMine(lease, self)) return undefined;
  return whyUntrusted(lease, self, now) === undefined ? lease : undefined;
}

/**
 * True when a live Claude Code leader holds `lease`: it has no `kind` (swarm's always have one).
 * Such a leader reads team-lead's inbox itself.
 */
export function claudeCodeHolds(lease: LeadLease | undefined, now = Date.now()): boolean {
  return lease !== undefined && lease.kind === undefined && liveHolder(lease, leaseSelf('console'), now) !== undefined;
}

/** "pid 123 (a console)" / "pid 123 (a headless run)". */
export function describeHolder(lease: LeadLease, host = os.hostname()): string {
  const what = { console: 'a console', agent: 'an agent lead in a console', headless: 'a headless run', mcp: 'a Claude Code lead through swarm mcp' }[lease.kind ?? 'console'];
  return `pid ${lease.pid}${lease.host !== undefined && lease.host !== host ? ` on ${lease.host}` : ''} (${lease.kind === undefined ? 'a leader' : what})`;
}

/** An agent lead of any front end (in a console, headless, through swarm mcp): its conversation needs every message, so it never hands the lease over. */
export function keepsInbox(lease: Pick<LeadLease, 'kind'>): boolean {
  return lease.kind === 'agent' || lease.kind === 'headless' || lease.kind === 'mcp';
}

/** Whether a tick must take the config lock: a renewal or hand-over due, or the holder no longer believed. */
export function needsSync(lease: LeadLease | undefined, self: LeaseSelf, now = Date.now()): boolean {
  if (lease !== undefined && isMine(lease, self)) {
    const age = now - (lease.renewedAt ?? lease.claimedAt);
    return lease.takeOver !== undefined || age >= RENEW_MS || age < 0;
  }
  return liveHolder(lease, self, now) === undefined;
}

/** The state `lease` gives this process without changing anything (when needsSync is false). */
function stateOf(lease: LeadLease | undefined, self: LeaseSelf, now: number): LeaseState {
  const holder = liveHolder(lease, self, now);
  return holder === undefined ? { role: 'holder' } : { role: 'watcher', holder };
}

/** The record of `who` claiming the lease, or being handed it, at `now`. */
function claimBy(who: Pick<LeadLease, 'pid' | 'kind' | 'host' | 'identity'>, now: number): LeadLease {
  return {
    pid: who.pid,
    claimedAt: now,
    renewedAt: now,
    kind: who.kind,
    ...(who.host !== undefined ? { host: who.host } : {}),
    ...(who.identity !== undefined ? { identity: who.identity } : {}),
  };
}

/**
 * One step, under the config lock: claim the lease when nobody believed holds it, renew it when it
 * is ours, hand it to a believed asker when ours and a console's. Returns this process's role after.
 */
export async function syncLease(team: Team, self: LeaseSelf, now = Date.now()): Promise<LeaseState> {
  return updateTeam(team, (c): LeaseState => {
    const lease = c.leadProcess;
    if (lease !== undefined && isMine(lease, self)) {
      const ask = lease.takeOver;
      if (ask !== undefined && self.kind === 'console' && whyUntrusted(askClaim(ask), self, now) === undefined) {
        c.leadProcess = claimBy(ask, now);
        return { role: 'watcher', holder: c.leadProcess };
      }
      lease.renewedAt = now;
      if (self.identity !== undefined) lease.identity = self.identity; // a lease an older swarm handed us
      if (ask !== undefined) delete lease.takeOver; // an agent lead keeps it; an unbelievable asker asked nothing
      return { role: 'holder' };
    }
    const holder = liveHolder(lease, self, now);
    if (holder !== undefined) return { role: 'watcher', holder };
    c.leadProcess = claimBy(self, now);
    return { role: 'holder' };
  });
}

/**
 * Ask the believed holder to hand the lease over (`--take-over`); the lease is ours when nobody
 * believed holds it. An agent lead is refused: it keeps the lease until it ends.
 */
export async function requestTakeOver(team: Team, self: LeaseSelf, now = Date.now()): Promise<LeaseState> {
  const asked = await updateTeam(team, (c): LeadLease | undefined => {
    const holder = liveHolder(c.leadProcess, self, now);
    if (holder === undefined) return undefined;
    if (keepsInbox(holder)) {
      throw new SwarmError('exists', `team ${team.name} is led by ${describeHolder(holder, self.host)}, which keeps team-lead's inbox until it ends: watch it with swarm lead --team ${team.name}, or stop it first`);
    }
    holder.takeOver = { pid: self.pid, kind: self.kind, host: self.host, at: now, ...(self.identity !== undefined ? { identity: self.identity } : {}) };
    return holder;
  });
  return asked === undefined ? syncLease(team, self, now) : { role: 'watcher', holder: asked };
}

/** Give the lease back if it is ours (exit); a team already gone is fine. */
export async function releaseLease(team: Team, self: LeaseSelf): Promise<void> {
  await updateTeam(team, (c) => {
    if (c.leadProcess !== undefined && isMine(c.leadProcess, self)) delete c.leadProcess;
  }).catch(() => undefined);
}

/** What clearUntrustedLease did. */
export type ClearOutcome = { cleared: true } | { cleared: false; why: string };

/**
 * Remove `seen`, a lease `whyUntrusted` refused (`swarm doctor --fix`), under the config lock: only
 * when the record there is still exactly `seen` and still not believed.
 */
export async function clearUntrustedLease(team: Team, seen: LeadLease, self: LeaseSelf, now = Date.now()): Promise<ClearOutcome> {
  return updateTeam(team, (c): ClearOutcome => {
    const lease = c.leadProcess;
    if (lease === undefined) return { cleared: false, why: 'it was already gone' };
    if (!isDeepStrictEqual(lease, seen)) return { cleared: false, why: `it changed meanwhile (now ${describeHolder(lease, self.host)}); left alone` };
    if (whyUntrusted(lease, self, now) === undefined) return { cleared: false, why: 'its holder is believed now; left alone' };
    delete c.leadProcess;
    return { cleared: true };
  });
}

/** The live holder other than this process, read without the lock (for a refusal or a warning). */
export async function otherHolder(team: Team, self: LeaseSelf): Promise<LeadLease | undefined> {
  return liveHolder((await readTeam(team)).leadProcess, self);
}

export interface LeaseKeeperOptions {
  /** The role changed (a watcher took over, a holder handed over). */
  onChange?: (now: LeaseState, before: LeaseState) => void;
  /** A tick failed (the next one tries again). */
  onError?: (e: unknown) => void;
  tickMs?: number;
  /** The time each claim, renewal and check is made at. */
  clock?: Clock;
}

/** Holds (renews) or watches the lease on a timer until closed; releases it on close. */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  /** Ticks under way (the timer's, and callers' such as waitHolding's): close waits for them before releasing. */
  private readonly running = new Set<Promise<LeaseState>>();
  private closed = false;

  private constructor(
    readonly team: Team,
    readonly self: LeaseSelf,
    public state: LeaseState,
    private readonly o: LeaseKeeperOptions,
  ) {}

  /** Claim or watch now (with `takeOver`, ask the holder first), then keep ticking. */
  static async open(team: Team, self: LeaseSelf, o: LeaseKeeperOptions & { takeOver?: boolean } = {}): Promise<LeaseKeeper> {
    const now = (o.clock ?? systemClock)();
    const state = o.takeOver ? await requestTakeOver(team, self, now) : await syncLease(team, self, now);
    const keeper = new LeaseKeeper(team, self, state, o);
    keeper.schedule();
    return keeper;
  }

  get holding(): boolean {
    return this.state.role === 'holder';
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule());
    }, this.o.tickMs ?? LEASE_TICK_MS);
    this.timer.unref();
  }

  /** One sync now; resolves with the state after it. */
  tick(): Promise<LeaseState> {
    const run = this.sync().finally(() => this.running.delete(run));
    this.running.add(run);
    return run;
  }

  private async sync(): Promise<LeaseState> {
    try {
      const before = this.state;
      const now = (this.o.clock ?? systemClock)();
      const lease = (await readTeam(this.team)).leadProcess;
      const next = needsSync(lease, this.self, now) ? await syncLease(this.team, this.self, now) : stateOf(lease, this.self, now);
      if (this.closed) return this.state;
      this.state = next;
      if (next.role !== before.role) this.o.onChange?.(next, before);
    } catch (e) {
      if (!this.closed) this.o.onError?.(e);
    }
    return this.state;
  }

  /** Tick until this process holds the lease (after `takeOver`); false at the deadline. */
  async waitHolding(timeoutMs: number, pollMs = 200): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.tick()).role !== 'holder') {
      if (Date.now() >= deadline || this.closed) return false;
      await new Promise((r) => setTimeout(r, pollMs));
    }
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.running);
    await releaseLease(this.team, this.self);
  }
}
