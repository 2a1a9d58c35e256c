// Leader side of plan approval (docs/protocol.md#control-messages, docs/protocol.md#teammate-runtime): answer a teammate's latest `plan_approval_request`
// in team-lead's inbox with a signed `plan_approval_response` in the teammate's inbox. Used by
// `swarm plan` and the leader console. The request entry is marked read in team-lead's inbox. Like
// a permission decision, nothing is sent unless the audit log can be written (audit.ts).
// `openPlanRequests` lists the plan questions still open — read or not, so a question taken from
// the inbox by a leader that died before answering is still shown to the next console or run.
import { encodeControl, parseControl, type PlanApprovalRequest } from '../protocol/control.js';
import { parsePermissionMode, type PermissionMode } from '../protocol/config.js';
import { SwarmError } from '../protocol/errors.js';
import { messageKey, type InboxMessage } from '../protocol/message.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { findMember, readTeam, requireMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { withFileLock } from '../storage/lock.js';
import { Mailbox } from '../mailbox/mailbox.js';
import type { TeamConfig } from '../protocol/config.js';
import { appendAudit, assertAuditWritable, readAudit, unaudited } from './audit.js';
import { openLeadMailbox } from './lead-mailbox.js';

export interface PlanAnswer {
  approve: boolean;
  feedback?: string;
  /** Mode the teammate switches to when approved, as given (validated here, once). */
  mode?: string;
  now?: () => number;
}

/** The modes a plan approval may switch to: any but `plan` itself. */
export const MODES_AFTER_PLAN: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions'];

export interface PlanAnswerResult {
  requestId: string;
  to: string;
  approved: boolean;
  msg_id: string;
  permissionMode?: PermissionMode;
}

/** The newest plan_approval_request from `name` among `entries`. */
export function latestPlanRequest(entries: readonly InboxMessage[], name: string): { entry: InboxMessage; request: PlanApprovalRequest } | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (!sameName(entry.from, name)) continue;
    const parsed = parseControl(entry.text);
    if (parsed.kind === 'control' && parsed.message.type === 'plan_approval_request') return { entry, request: parsed.message };
  }
  return undefined;
}

function answered(entries: readonly InboxMessage[], requestId: string): boolean {
  return entries.some((e) => {
    const p = parseControl(e.text);
    return e.from === LEAD_NAME && p.kind === 'control' && p.message.type === 'plan_approval_response' && p.message.requestId === requestId;
  });
}

export interface OpenPlan {
  /** The teammate's member name. */
  from: string;
  request: PlanApprovalRequest;
  /** When it was asked (epoch ms; the entry's time when the request's own does not parse). */
  at: number;
}

/**
 * The plan questions still open, oldest first: each teammate's latest `plan_approval_request` in
 * team-lead's inbox (read or not) that no `plan_approval_response` answered (none in the teammate's
 * inbox, no `plan` audit line for it).
 */
export async function openPlanRequests(team: Team, config?: TeamConfig): Promise<OpenPlan[]> {
  const roster = config ?? (await readTeam(team));
  const mailbox = new Mailbox({ team });
  const entries = await mailbox.read(LEAD_NAME);
  const decided = new Set((await readAudit(team.paths)).flatMap((e) => (e.event === 'plan' ? [e.id] : [])));
  const open: OpenPlan[] = [];
  for (const m of roster.members) {
    if (m.name === LEAD_NAME) continue;
    const found = latestPlanRequest(entries, m.name);
    if (!found || decided.has(found.request.requestId) || answered(await mailbox.read(m.name), found.request.requestId)) continue;
    const at = Date.parse(found.request.timestamp);
    open.push({ from: m.name, request: found.request, at: Number.isFinite(at) ? at : Date.parse(found.entry.timestamp) });
  }
  return open.sort((a, b) => a.at - b.at);
}

export async function answerPlan(team: Team, name: string, answer: PlanAnswer): Promise<PlanAnswerResult> {
  const config = await readTeam(team);
  const member = requireMember(config, name);
  if (answer.mode !== undefined && !answer.approve) throw new SwarmError('invalid_input', '--mode only goes with --approve');
  const mode = answer.mode === undefined ? undefined : parsePermissionMode(answer.mode, '--mode', MODES_AFTER_PLAN);
  const { mailbox } = await openLeadMailbox({ team, ...(answer.now ? { now: answer.now } : {}) });
  const found = latestPlanRequest(await mailbox.read(LEAD_NAME), member.name);
  if (!found) {
    throw new SwarmError('not_found', `no plan approval request from ${member.name} in team-lead's inbox; see 'swarm inbox team-lead'`);
  }
  const { requestId } = found.request;
  // Check and answer under one lock: two leaders (a console and its watcher, or `swarm plan` in
  // another shell) answering at the same instant send exactly one response.
  const entry = await withFileLock(team.paths.planAnswerLock, async () => {
    if (answered(await mailbox.read(member.name), requestId)) {
      throw new SwarmError('already_resolved', `${member.name}'s plan ${requestId} is already answered`);
    }
    await assertAuditWritable(team.paths, `${member.name}'s plan was not ${answer.approve ? 'approved' : 'rejected'}`); // before it is sent
    const text = encodeControl({
      type: 'plan_approval_response',
      requestId,
      approved: answer.approve,
      ...(answer.feedback ? { feedback: answer.feedback } : {}),
      timestamp: new Date((answer.now ?? Date.now)()).toISOString(),
      ...(answer.approve && mode ? { permissionMode: mode } : {}),
    });
    const lead = findMember(config, LEAD_NAME);
    const appended = await mailbox.append(member.name, {
      from: LEAD_NAME,
      text,
      summary: answer.approve ? 'plan approved' : 'plan rejected',
      ...(lead?.color ? { color: lead.color } : {}),
    });
    const key = messageKey(found.entry);
    await mailbox.consume(LEAD_NAME, (m) => messageKey(m) === key);
    return appended;
  });
  await appendAudit(team.paths, {
    event: 'plan',
    id: requestId,
    at: (answer.now ?? Date.now)(),
    worker: member.name,
    status: answer.approve ? 'approved' : 'rejected',
    by: LEAD_NAME,
    ...(answer.feedback ? { feedback: answer.feedback } : {}),
    ...(answer.approve && mode ? { mode } : {}),
  }).catch((e: unknown) => {
    throw unaudited(team.paths, `${answer.approve ? 'approved' : 'rejected'} ${member.name}'s plan ${requestId} and sent the answer`, e);
  });
  return {
    requestId,
    to: member.name,
    approved: answer.approve,
    msg_id: entry.msg_id ?? '',
    ...(answer.approve && mode ? { permissionMode: mode } : {}),
  };
}
