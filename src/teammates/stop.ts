// Stopping teammates, always verified (docs/protocol.md#shutdown):
//   killTeammate      kill now through the member's backend (pane + process verified gone), then
//                     remove the member and its status file;
//   shutdownTeammate  cooperative: a signed `shutdown_request` to its inbox, then wait for that
//                     request's `shutdown_approved` / `shutdown_rejected` from that member in
//                     team-lead's inbox (only that frame is consumed: other leader messages stay
//                     unread for the console), escalating to a kill on --force. By default it
//                     waits the teammate's grace period plus a margin (protocol/shutdown-timing.ts),
//                     so a teammate that exits at the end of its grace is seen exiting;
//                     A hibernating member is removed without waking it (removeIfAsleep);
//   handleShutdownApproved  the one leader-side handler of an approval (wait for the process to
//                     exit, kill the leftover pane — remain-on-exit keeps it — and update the
//                     roster). The console reuses it: a real `claude` teammate never removes itself.
//                     A frame marked `graceExpired` (the model never answered; the runtime exited at
//                     the end of its grace period) is reported as `grace_exit`, not as an approval.
// Where a member is forgotten, its git worktree (if it had one) is settled (worktree.ts): removed
// with its branch when clean, else kept; the outcome's `worktree` says which.
import type { Member, TeamConfig } from '../protocol/config.js';
import { encodeControl, parseControl, type ShutdownApproved, type ShutdownRejected } from '../protocol/control.js';
import { SwarmError } from '../protocol/errors.js';
import { newShutdownId } from '../protocol/ids.js';
import type { InboxMessage } from '../protocol/message.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { shutdownGraceMs, shutdownWaitMs } from '../protocol/shutdown-timing.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { appendAudit } from '../permissions/audit.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { claudeCodeHolds } from '../team/lead-lease.js';
import { retireStatus } from '../team/spend.js';
import { findMember, readTeam, removeMember, requireMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { awaitFiles } from '../storage/await-files.js';
import type { Backend } from '../backends/backend.js';
import { isProcessAlive, pollUntil, terminateProcess } from '../backends/process.js';
import { backendForMember, paneRefOf, type BackendContext } from '../backends/registry.js';
import { withSpawnLock } from './recipe.js';
import { releaseTasksOf, type Departure } from './release.js';
import { settleWorktree, type WorktreeFate } from './worktree.js';

/** `grace_exit`: the model never answered; the teammate exited by itself when its grace period ended. */
export type StopOutcomeKind = 'approved' | 'grace_exit' | 'rejected' | 'killed' | 'timeout' | 'already_gone' | 'failed';

export interface StopOutcome {
  name: string;
  outcome: StopOutcomeKind;
  reason?: string;
  /** True when the teammate is verified gone: no pane, no process, no member. */
  verified: boolean;
  /** A worktree teammate's worktree: removed (it was clean) or kept (branch, commits ahead, files changed). */
  worktree?: WorktreeFate;
}

export interface StopContext extends BackendContext {
  /** How long an approving teammate gets to exit by itself before its pane is killed. Default 5 s. */
  exitGraceMs?: number;
  /**
   * The backend of a member; default `backendForMember`. shutdownAll passes one that reuses a
   * backend per kind, so the stops of many teammates share its (coalesced) pane listings.
   */
  backendFor?: (member: Member, team: Team) => Backend;
  /** Stops a paneless member's process; true once it is verified gone. Default `terminateProcess`. */
  terminate?: (pid: number) => Promise<boolean>;
}

function memberBackend(member: Member, team: Team, ctx: StopContext): Backend {
  return ctx.backendFor?.(member, team) ?? backendForMember(member, team, ctx);
}

export interface ShutdownOptions extends StopContext {
  reason?: string | undefined;
  /** How long to wait for an answer or the exit. Default: the grace period plus a margin (shutdownWaitMs). */
  timeoutMs?: number;
  /** Kill when the teammate rejects or does not answer in time. */
  force?: boolean;
  /** Told each teammate's outcome as soon as it is known (shutdownAll: in the order they settle). */
  onOutcome?: (outcome: StopOutcome) => void;
  /** Told once a teammate's shutdown_request is in its inbox. */
  onRequested?: (name: string) => void;
}

function requireTeammate(config: TeamConfig, name: string): Member {
  const member = requireMember(config, name);
  if (sameName(member.name, LEAD_NAME)) {
    throw new SwarmError('invalid_input', 'the team lead is not a teammate: stop the console itself, or delete the team');
  }
  return member;
}

/** Kill the member's pane and process (verified), or just its process when no pane was recorded. */
async function stopPane(team: Team, member: Member, ctx: StopContext): Promise<void> {
  if (member.tmuxPaneId === '') {
    // A pid recorded for another machine (`host`) is not this machine's to signal.
    if (member.pid !== undefined && member.host === undefined && !(await (ctx.terminate ?? terminateProcess)(member.pid))) {
      throw new SwarmError('backend', `could not verify that process ${member.pid} of ${member.name} is gone`);
    }
    return;
  }
  await memberBackend(member, team, ctx).kill(paneRefOf(member));
}

/**
 * Retire its status file (what it spent still counts: team/spend.ts), remove the member from the
 * roster, release its unfinished tasks, and settle its worktree; returns `{ worktree }` to spread
 * into the outcome (empty without one).
 */
async function forget(team: Team, member: Member, how: Departure): Promise<{ worktree?: WorktreeFate }> {
  await retireStatus(team, member.name);
  await removeMember(team, member.name);
  await releaseTasksOf(team, member.name, how);
  return member.worktreePath ? { worktree: await settleWorktree(member.worktreePath, team.name, member.name) } : {};
}

/**
 * A hibernating member (docs/hibernation.md) removed without waking it: under the spawn lock, so a
 * waker's resume either started before (then it is awake: undefined, ask it as usual) or starts
 * after and finds no member. Its exited pane, if one is still shown, is closed and verified.
 */
async function removeIfAsleep(team: Team, name: string, ctx: StopContext): Promise<StopOutcome | undefined> {
  return withSpawnLock(team, undefined, async () => {
    const member = findMember(await readTeam(team), name);
    if (member === undefined) return { name, outcome: 'already_gone', reason: 'no longer in the roster', verified: true };
    if (member.hibernatedAt === undefined) return undefined;
    await stopPane(team, member, ctx);
    const worktree = await forget(team, member, 'shut down');
    return { name: member.name, outcome: 'already_gone', reason: 'it was hibernating, and was not woken', verified: true, ...worktree };
  });
}

/** Hard stop now, verified; the member is removed. */
export async function killTeammate(team: Team, name: string, ctx: StopContext): Promise<StopOutcome> {
  const member = requireTeammate(await readTeam(team), name);
  await stopPane(team, member, ctx);
  const worktree = await forget(team, member, 'killed');
  return { name: member.name, outcome: 'killed', verified: true, ...worktree };
}

/**
 * The leader's handling of a `shutdown_approved` frame: give the process `exitGraceMs` to exit,
 * then kill the pane (and the process, if it is still there) with verification, and remove the
 * member. A frame from someone no longer in the roster is already handled.
 */
export async function handleShutdownApproved(
  team: Team,
  frame: Pick<ShutdownApproved, 'from' | 'graceExpired'>,
  ctx: StopContext,
): Promise<StopOutcome> {
  const member = findMember(await readTeam(team), frame.from);
  if (member === undefined || sameName(member.name, LEAD_NAME)) {
    return { name: frame.from, outcome: 'already_gone', verified: true, reason: 'no longer in the roster' };
  }
  let exited = true;
  if (member.tmuxPaneId !== '') {
    const backend = memberBackend(member, team, ctx);
    const pane = paneRefOf(member);
    exited = await pollUntil(async () => !(await backend.isAlive(pane)), ctx.exitGraceMs ?? 5000, 50);
    await backend.kill(pane);
  } else {
    await stopPane(team, member, ctx);
  }
  const worktree = await forget(team, member, 'shut down');
  const grace = Math.round((ctx.exitGraceMs ?? 5000) / 1000);
  if (frame.graceExpired === true) {
    const graceMs = (() => {
      try {
        return shutdownGraceMs(ctx.env);
      } catch {
        return undefined; // a bad SWARM_SHUTDOWN_GRACE_MS here: the teammate's own was fine
      }
    })();
    const reason = `exited by itself when its ${graceMs === undefined ? '' : `${Math.round(graceMs / 1000)} s `}grace period ended`;
    return { name: member.name, outcome: 'grace_exit', verified: true, reason: exited ? reason : `${reason}, and was killed ${grace} s later`, ...worktree };
  }
  return { name: member.name, outcome: 'approved', verified: true, ...(exited ? {} : { reason: `still running ${grace} s after approving; killed` }), ...worktree };
}

type Answer = ShutdownApproved | ShutdownRejected;

function answerOf(m: InboxMessage, requestId: string, from: string): Answer | undefined {
  if (!sameName(m.from, from)) return undefined;
  const parsed = parseControl(m.text);
  if (parsed.kind !== 'control') return undefined;
  const c = parsed.message;
  return (c.type === 'shutdown_approved' || c.type === 'shutdown_rejected') && c.requestId === requestId ? c : undefined;
}

/**
 * The answer to `requestId` in team-lead's inbox, consuming only that frame (also found if another
 * reader took it); left unread when `leaveUnread`.
 */
async function takeAnswer(mailbox: Mailbox, requestId: string, from: string, leaveUnread: boolean): Promise<Answer | undefined> {
  const present = (await mailbox.read(LEAD_NAME)).find((m) => answerOf(m, requestId, from) !== undefined);
  if (present === undefined || leaveUnread) return present && answerOf(present, requestId, from);
  const [taken] = await mailbox.consume(LEAD_NAME, (m) => answerOf(m, requestId, from) !== undefined);
  return answerOf(taken ?? present, requestId, from);
}

/** Ask a teammate to shut down and report exactly what happened (see the file header); both are audited. */
export async function shutdownTeammate(team: Team, name: string, opts: ShutdownOptions): Promise<StopOutcome> {
  let requestId: string | undefined;
  const outcome = await askToShutDown(team, name, opts, (id) => (requestId = id));
  if (requestId !== undefined) {
    await appendAudit(team.paths, {
      event: 'shutdown',
      id: requestId,
      at: Date.now(),
      worker: outcome.name,
      status: outcome.outcome,
      by: LEAD_NAME,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    });
  }
  return outcome;
}

async function askToShutDown(team: Team, name: string, opts: ShutdownOptions, asked: (requestId: string) => void): Promise<StopOutcome> {
  const config = await readTeam(team);
  const member = requireTeammate(config, name);
  const backend: Backend | undefined = member.tmuxPaneId === '' ? undefined : memberBackend(member, team, opts);
  const pane = paneRefOf(member);
  // No pane: the recorded pid is all there is to go by (a live one is asked, not killed unasked).
  const alive = async (): Promise<boolean> =>
    backend !== undefined ? await backend.isAlive(pane) : member.pid !== undefined && member.host === undefined && isProcessAlive(member.pid);
  const gone = async (reason: string): Promise<StopOutcome> => {
    await stopPane(team, member, opts);
    const worktree = await forget(team, member, 'shut down');
    return { name: member.name, outcome: 'already_gone', reason, verified: true, ...worktree };
  };
  if (member.hibernatedAt !== undefined) {
    const asleep = await removeIfAsleep(team, member.name, opts);
    if (asleep !== undefined) return asleep;
    return askToShutDown(team, name, opts, asked); // woken meanwhile: asked like any live teammate
  }
  if (!(await alive())) return gone('it had already exited');

  const { mailbox } = await openLeadMailbox({ team });
  const requestId = newShutdownId(member.name);
  const lead = config.members[0];
  await mailbox.append(member.name, {
    from: LEAD_NAME,
    text: encodeControl({
      type: 'shutdown_request',
      requestId,
      from: LEAD_NAME,
      ...(opts.reason ? { reason: opts.reason } : {}),
      timestamp: new Date().toISOString(),
    }),
    ...(lead?.color ? { color: lead.color } : {}),
  });
  asked(requestId);
  await appendAudit(team.paths, { event: 'shutdown', id: requestId, at: Date.now(), worker: member.name, status: 'requested', by: LEAD_NAME, ...(opts.reason ? { reason: opts.reason } : {}) });
  opts.onRequested?.(member.name);
  const timeoutMs = opts.timeoutMs ?? shutdownWaitMs(opts.env);
  // A Claude Code leader drops a teammate from its own roster when it reads the teammate's
  // shutdown_approved: the answer is left unread for it.
  const leaveUnread = claudeCodeHolds(config.leadProcess);
  const result = await awaitFiles(
    [team.paths.inboxes],
    async (): Promise<Answer | 'exited' | undefined> => {
      const answer = await takeAnswer(mailbox, requestId, member.name, leaveUnread);
      if (answer !== undefined) return answer;
      if (await alive()) return undefined;
      // It answers before it exits: look once more, after seeing it gone.
      return (await takeAnswer(mailbox, requestId, member.name, leaveUnread)) ?? 'exited';
    },
    { timeoutMs },
  );
  const kill = async (reason: string): Promise<StopOutcome> => {
    await stopPane(team, member, opts);
    const worktree = await forget(team, member, 'killed');
    return { name: member.name, outcome: 'killed', reason, verified: true, ...worktree };
  };
  if (result === undefined) {
    const reason = `no answer within ${Math.round(timeoutMs / 100) / 10} s`;
    if (opts.force) return kill(`--force after ${reason}`);
    // A swarm teammate still holds the request: it exits by itself when its grace period ends.
    const grace = member.runtime === 'claude' ? undefined : shutdownGraceMs(opts.env);
    const pending = grace !== undefined && grace > timeoutMs ? `; the request stands: it exits by itself when its ${Math.round(grace / 1000)} s grace period ends` : '';
    return { name: member.name, outcome: 'timeout', reason: `${reason}${pending}`, verified: false };
  }
  if (result === 'exited') {
    // It went to sleep instead (its status said hibernating before config.json did): removed asleep.
    if (findMember(await readTeam(team), member.name)?.hibernatedAt !== undefined) {
      return (await removeIfAsleep(team, member.name, opts)) ?? askToShutDown(team, name, opts, asked);
    }
    return gone('it exited without answering the shutdown request');
  }
  if (result.type === 'shutdown_rejected') {
    return opts.force
      ? kill(`--force after a rejection: ${result.reason}`)
      : { name: member.name, outcome: 'rejected', reason: result.reason, verified: false };
  }
  const handled = await handleShutdownApproved(team, result, opts);
  // Another reader (the console) may have finished the cleanup first: still an approval (or a grace exit).
  if (handled.outcome !== 'already_gone') return handled;
  return result.graceExpired === true
    ? { name: member.name, outcome: 'grace_exit', verified: true, reason: 'exited by itself when its grace period ended' }
    : { name: member.name, outcome: 'approved', verified: true };
}

/**
 * A `backendFor` that builds each backend once (per team and kind) and reuses it: for shutdownAll,
 * and for a command that stops teammates again and again (`swarm run -p`).
 */
export function backendsOnce(ctx: StopContext): (member: Member, team: Team) => Backend {
  const shared = new Map<string, Backend>();
  const build = ctx.backendFor ?? ((member: Member, t: Team) => backendForMember(member, t, ctx)); // as it is now: ctx.backendFor may become this
  return (member, t) => {
    const key = `${t.name}\u0000${member.backendType ?? ''}`;
    let b = shared.get(key);
    if (b === undefined) shared.set(key, (b = build(member, t)));
    return b;
  };
}

/** Shut down every teammate at once; a failure for one is reported as its `failed` outcome. */
export async function shutdownAll(team: Team, opts: ShutdownOptions): Promise<StopOutcome[]> {
  const names = (await readTeam(team)).members.filter((m) => !sameName(m.name, LEAD_NAME)).map((m) => m.name);
  const backendFor = backendsOnce(opts);
  // Every request is sent at once and every wait runs concurrently (one shutdownTeammate each).
  return Promise.all(
    names.map((name) =>
      shutdownTeammate(team, name, { ...opts, backendFor, onOutcome: undefined })
        .catch((e: unknown): StopOutcome => ({ name, outcome: 'failed', reason: e instanceof Error ? e.message.split('\n')[0]! : String(e), verified: false }))
        .then((o) => (opts.onOutcome?.(o), o)),
    ),
  );
}
