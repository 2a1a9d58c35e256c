// Leader side of permission requests (docs/protocol.md#permission-requests steps 2, 5, 6): decide, expire, clear, sweep.
//
// decide() holds the request's lock (the lock of `pending/<id>.json`) from the moment it re-checks
// the pending file until everything is written, in this order: signed `permission_response` frame
// to the worker's inbox (unless a response is already there: checked under the inbox's lock, the one
// a Claude Code leader takes to answer, so its answer and ours never both land), signed
// `resolved/<id>.json` (atomic), pending file removed, `decision` audit line. So of two racing
// deciders exactly one finds the pending file; the other gets SwarmError('already_resolved') having
// written nothing. A request a Claude Code leader answered first is ended with its decision
// (audited as `team-lead (Claude Code)`) and reported as already_resolved, naming that answer.
// Directories Claude Code does not create (permissions/, resolved/) are made on demand, 0700. An "always" rule is added to config.json
// (under the config lock) after the decision. The id is validated before anything is touched.
// Audit first (issue 30): decide() and the rule edits check that audit.jsonl can be appended to,
// inside their locked step and before anything is sent or written, and change nothing when it
// cannot; an audit line that still fails after the act is an error saying what was done (audit.ts).
import { promises as fs } from 'node:fs';
import { encodeControl, parseControl, type PermissionResponseFrame } from '../protocol/control.js';
import { errnoCode, isSwarmError, SwarmError } from '../protocol/errors.js';
import { systemClock, type Clock } from '../protocol/ids.js';
import { LEAD_NAME } from '../protocol/names.js';
import { messageKey, type InboxMessage } from '../protocol/message.js';
import { ResolvedRequestSchema, type PendingRequest, type ResolvedRequest } from '../protocol/permission.js';
import { ensureDir, fileExists, formatJson, refuseLinkedDir, writeFileAtomic } from '../storage/atomic.js';
import { withFileLock } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';
import { findMember, readTeam, updateTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { DEFAULT_DENY_FEEDBACK, priorResponse, type PriorResponse } from './answer.js';
import { Mailbox } from '../mailbox/mailbox.js';
import { appendAudit, assertAuditWritable, endingEvent, noAnswerWithin, unaudited } from './audit.js';
import { openLeadMailbox } from './lead-mailbox.js';
import { endPending, readPending } from './pending.js';
import { isWorkerName, listPending, materialiseInboxRequests, type ListPendingOptions } from './pending-list.js';
import { checkRule, suggestRule } from './rules.js';
import { inputDigest, signRecord, type ParsedVerifyKey } from './signing.js';

export interface DecideOptions {
  /** Approve and add the suggested rule to the team's allow rules. */
  always?: boolean;
  feedback?: string;
  updatedInput?: Record<string, unknown>;
  /** Who decided (resolvedBy), default `team-lead`. */
  by?: string;
  now?: Clock;
  /** Runs between sending the frame and writing the resolved file (tests: a worker that is quicker than the file). */
  afterFrame?: () => Promise<void>;
}

export interface DecideResult {
  id: string;
  status: 'approved' | 'rejected';
  request: PendingRequest;
  resolved: ResolvedRequest;
  /** The rule `always` added (or found already present). */
  rule?: string;
  /** False when the worker is no longer a member (no inbox frame written). */
  frameSent: boolean;
}

/** Why `id` is not pending: already_resolved (with what happened) or not_found. */
async function notPending(team: Team, id: string): Promise<SwarmError> {
  const paths = team.paths;
  try {
    const raw: unknown = JSON.parse(await fs.readFile(paths.resolvedFile(id), 'utf8'));
    const r = ResolvedRequestSchema.safeParse(raw);
    const what = r.success ? `${r.data.status} by ${r.data.resolvedBy}` : 'a resolution is on file';
    return new SwarmError('already_resolved', `permission request ${id} is already resolved (${what}); see 'swarm permissions'`);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT' && !(e instanceof SyntaxError)) throw e;
  }
  const ended = await endingEvent(paths, id);
  if (ended) {
    const what = ended.event === 'decision' ? `${ended.status ?? 'decided'} by ${ended.by ?? 'team-lead'}` : `${ended.event}${ended.by ? ` by ${ended.by}` : ''}${ended.reason ? `: ${ended.reason}` : ''}`;
    return new SwarmError('already_resolved', `permission request ${id} is already resolved (${what}); see 'swarm permissions'`);
  }
  const cc = await answeredByClaudeCode(team, id);
  if (cc) return new SwarmError('already_resolved', `permission request ${id} is already answered by ${cc.by} (${cc.decision === 'allow' ? 'approved' : 'rejected'}); nothing was sent`);
  return new SwarmError('not_found', `no pending permission request "${id}"; see 'swarm permissions' for the ids`);
}

/** Whether the worker has read the frame sent to it (marked read, or already moved to its archive). */
async function frameTaken(mailbox: Mailbox, worker: string, frame: InboxMessage): Promise<boolean> {
  const key = messageKey(frame);
  const now = (await mailbox.read(worker)).find((m) => messageKey(m) === key);
  return now === undefined || now.read;
}

/** A Claude Code leader's answer to `id` (asked by a frame in team-lead's inbox) in the asker's inbox. */
async function answeredByClaudeCode(team: Team, id: string): Promise<PriorResponse | undefined> {
  const mailbox = new Mailbox({ team });
  for (const entry of await mailbox.read(LEAD_NAME)) {
    const c = parseControl(entry.text);
    if (c.kind !== 'control' || c.message.type !== 'permission_request' || c.message.request_id !== id || !isWorkerName(entry.from)) continue;
    return priorResponse(await mailbox.read(entry.from), { id, input: c.message.input }, undefined, true);
  }
  return undefined;
}

export async function decide(team: Team, id: string, decision: 'allow' | 'deny', opts: DecideOptions = {}): Promise<DecideResult> {
  const paths = team.paths;
  const pendingFile = paths.pendingFile(id); // validates the id before any I/O
  if (opts.always && decision !== 'allow') throw new SwarmError('invalid_input', '"always" only applies to approving a request');
  const now = opts.now ?? systemClock;
  const config = await readTeam(team);
  if (!(await fileExists(pendingFile))) {
    await materialiseInboxRequests(team, config, now); // a Claude Code teammate's frame, not listed yet
    if (!(await fileExists(pendingFile))) throw await notPending(team, id);
  }
  const { mailbox, key } = await openLeadMailbox({ team });
  const lead = findMember(config, LEAD_NAME);
  const result = await withFileLock(pendingFile, async (held): Promise<DecideResult> => {
    const request = await readPending(paths, id);
    if (!request) throw await notPending(team, id);
    if (request.id !== id) throw new SwarmError('invalid_input', `${pendingFile} holds request "${request.id}", not "${id}"; remove it by hand`);
    const worker = findMember(config, request.workerName);
    const rule = opts.always ? alwaysRule(request, worker?.cwd) : undefined;
    const status: ResolvedRequest['status'] = decision === 'allow' ? 'approved' : 'rejected';
    const verb = decision === 'allow' ? 'approved' : 'denied';
    await assertAuditWritable(paths, `${id} was not ${verb}`); // before anything is sent
    const permissionUpdates = rule ? [ruleUpdate(rule)] : undefined;
    const resolved = signRecord(
      {
        id,
        workerId: request.workerId,
        workerName: request.workerName,
        teamName: request.teamName,
        toolName: request.toolName,
        toolUseId: request.toolUseId,
        input: request.input,
        status,
        resolvedBy: opts.by ?? LEAD_NAME,
        resolvedAt: now(),
        ...(opts.feedback ? { feedback: opts.feedback } : {}),
        ...(decision === 'allow' && opts.updatedInput ? { updatedInput: opts.updatedInput } : {}),
        ...(permissionUpdates ? { permissionUpdates } : {}),
      },
      key.privateKey,
    );
    // `resolved_by` only when it is not the leader itself (an expiry): the frame the worker may read
    // before the resolved file must say the same.
    const by = opts.by !== undefined && opts.by !== LEAD_NAME ? { resolved_by: opts.by } : {};
    const frame: PermissionResponseFrame =
      decision === 'allow'
        ? {
            type: 'permission_response',
            request_id: id,
            subtype: 'success',
            input_sha256: inputDigest(request.input),
            ...by,
            response: {
              updated_input: opts.updatedInput ?? request.input,
              ...(permissionUpdates ? { permission_updates: permissionUpdates } : {}),
            },
          }
        : { type: 'permission_response', request_id: id, subtype: 'error', ...by, error: opts.feedback || DEFAULT_DENY_FEEDBACK };
    const resolvedFile = paths.resolvedFile(id); // refuses a linked directory before anything is sent
    await ensureDir(paths.resolved);
    held.assertHeld(); // a decider that stalled past the stale window may have been overtaken by another
    let sentFrame: InboxMessage | undefined;
    if (worker) {
      const sent = await mailbox.appendUnless(
        worker.name,
        { from: LEAD_NAME, text: encodeControl(frame), ...(lead?.color ? { color: lead.color } : {}) },
        (entries) => priorResponse(entries, request, key, request.source === 'inbox')?.entry,
      );
      if ('found' in sent) throw await answeredBefore(paths, request, sent.found, key, now());
      sentFrame = sent.appended;
    }
    await opts.afterFrame?.();
    held.assertHeld();
    await writeFileAtomic(resolvedFile, formatJson(resolved));
    // A worker that took the frame before this file existed has already removed its resolved file,
    // and nobody would ever take this one: it goes at once (the audit keeps the decision).
    if (worker && sentFrame && (await frameTaken(mailbox, worker.name, sentFrame))) await fs.rm(resolvedFile, { force: true });
    await fs.rm(pendingFile, { force: true });
    const sentTo = worker ? ` and sent the answer to ${worker.name}` : ` (no answer sent: ${request.workerName} is no longer a member)`;
    const done = `${verb} ${id} (${request.workerName} ${request.toolName})${sentTo}${rule ? `; the "always" rule ${rule} was not added` : ''}`;
    await appendAudit(paths, {
      event: 'decision',
      id,
      at: resolved.resolvedAt,
      worker: request.workerName,
      toolName: request.toolName,
      status,
      by: resolved.resolvedBy,
      ...(opts.feedback ? { feedback: opts.feedback } : {}),
      ...(rule ? { rule } : {}),
    }).catch((e: unknown) => {
      throw unaudited(paths, done, e);
    });
    return { id, status, request, resolved, ...(rule ? { rule } : {}), frameSent: worker !== undefined };
  });
  if (result.rule) await addRule(team, 'allow', result.rule);
  return result;
}

/**
 * The request was answered in the worker's inbox before this decision (a Claude Code leader, or
 * another swarm leader whose frame landed without its resolved file): end it with that answer
 * (pending file removed, `decision` audit line) and say which answer won.
 */
async function answeredBefore(paths: TeamPaths, request: PendingRequest, entry: InboxMessage, key: ParsedVerifyKey, at: number): Promise<SwarmError> {
  const prior = priorResponse([entry], request, key, true)!;
  const status = prior.decision === 'allow' ? 'approved' : 'rejected';
  await appendAudit(paths, { event: 'decision', id: request.id, at, worker: request.workerName, toolName: request.toolName, status, by: prior.by });
  await fs.rm(paths.pendingFile(request.id), { force: true });
  return new SwarmError('already_resolved', `permission request ${request.id} is already answered by ${prior.by} (${status}); nothing was sent`);
}

function alwaysRule(request: PendingRequest, memberCwd: string | undefined): string {
  const cwd = request.cwd ?? memberCwd ?? '';
  const rule = suggestRule({ toolName: request.toolName, input: request.input, cwd });
  const why = rule === undefined ? undefined : ruleProblem(rule);
  if (rule === undefined || why !== undefined) {
    throw new SwarmError(
      'invalid_input',
      `no safe "always" rule fits this ${request.toolName} request${why ? ` (${why})` : ''}; approve it without --always, or add a rule with 'swarm permissions allow <rule>'`,
    );
  }
  return rule;
}

/** Why checkRule refuses `rule` (a tool swarm does not know), or undefined when it is fine. */
function ruleProblem(rule: string): string | undefined {
  try {
    checkRule(rule);
    return undefined;
  } catch (e) {
    if (!isSwarmError(e, 'invalid_input')) throw e;
    return e.message;
  }
}

/** Claude Code's PermissionUpdate for a rule (so a real `claude` teammate adopts it for its session). */
function ruleUpdate(rule: string): Record<string, unknown> {
  const m = /^([^(]+)(?:\((.*)\))?$/s.exec(rule);
  const toolName = m?.[1] ?? rule;
  const ruleContent = m?.[2];
  return { type: 'addRules', rules: [{ toolName, ...(ruleContent !== undefined ? { ruleContent } : {}) }], behavior: 'allow', destination: 'session' };
}

/**
 * Add `rule` (already validated) to `swarm.rules.<list>` under the config lock (audited); false if
 * present. An audit log that cannot be written refuses the change before it is made.
 */
export async function addRule(team: Team, list: 'allow' | 'deny', rule: string, now: Clock = systemClock): Promise<boolean> {
  const added = await updateTeam(team, async (config) => {
    const swarm = (config.swarm ??= {});
    const rules = (swarm.rules ??= { allow: [], deny: [] });
    if (rules[list].includes(rule)) return false;
    await assertAuditWritable(team.paths, `the ${list} rule ${rule} was not added`);
    rules[list].push(rule);
    return true;
  });
  if (added) {
    await appendAudit(team.paths, { event: 'rule', id: rule, at: now(), status: 'added', list, by: LEAD_NAME }).catch((e: unknown) => {
      throw unaudited(team.paths, `added the ${list} rule ${rule} (it is in force)`, e);
    });
  }
  return added;
}

/** Remove `rule` from both lists under the config lock (audited, checked first as addRule); the lists it was removed from. */
export async function removeRule(team: Team, rule: string, now: Clock = systemClock): Promise<('allow' | 'deny')[]> {
  const from = await removeFromLists(team, rule);
  const at = now();
  if (from.length === 0) return from;
  await appendAudit(team.paths, ...from.map((list) => ({ event: 'rule' as const, id: rule, at, status: 'removed', list, by: LEAD_NAME }))).catch((e: unknown) => {
    throw unaudited(team.paths, `removed the rule ${rule} from ${from.join(' and ')}`, e);
  });
  return from;
}

async function removeFromLists(team: Team, rule: string): Promise<('allow' | 'deny')[]> {
  return updateTeam(team, async (config) => {
    const rules = config.swarm?.rules;
    if (!rules) return [];
    const from = (['allow', 'deny'] as const).filter((list) => rules[list].includes(rule));
    if (from.length > 0) await assertAuditWritable(team.paths, `the rule ${rule} was not removed`);
    for (const list of from) rules[list] = rules[list].filter((r) => r !== rule);
    return from;
  });
}

/** Deny every request older than `timeoutMs` ("no answer within <n>s"); the ids denied. */
export async function expireStale(team: Team, timeoutMs: number, opts: ListPendingOptions = {}): Promise<string[]> {
  const feedback = noAnswerWithin(timeoutMs);
  const denied: string[] = [];
  for (const p of await listPending(team, opts)) {
    if (p.ageMs < timeoutMs) continue;
    try {
      await decide(team, p.id, 'deny', { feedback, by: 'timeout', ...(opts.now ? { now: opts.now } : {}) });
      denied.push(p.id);
    } catch (e) {
      if (!isSwarmError(e, 'already_resolved') && !isSwarmError(e, 'not_found')) throw e;
    }
  }
  return denied;
}

/** Remove an orphaned request (its worker is gone); refuses a live worker's unless `force`. */
export async function clearOrphaned(team: Team, id: string, opts: ListPendingOptions & { force?: boolean } = {}): Promise<PendingRequest> {
  const paths = team.paths;
  paths.pendingFile(id); // validate first
  const view = (await listPending(team, opts)).find((p) => p.id === id);
  if (!view) throw await notPending(team, id);
  if (!view.orphaned && !opts.force) {
    const pid = view.workerPid !== undefined ? ` (pid ${view.workerPid})` : '';
    throw new SwarmError('invalid_input', `request ${id}: worker ${view.workerName} is still alive${pid}; decide it with 'swarm approve' or 'swarm deny'`);
  }
  const at = (opts.now ?? systemClock)();
  const ended = await endPending(paths, id, { event: 'cleared', id, at, worker: view.workerName, toolName: view.toolName, by: LEAD_NAME, reason: 'worker gone' });
  if (!ended) throw await notPending(team, id);
  const { ageMs: _a, orphaned: _o, ...record } = view;
  return record;
}

/** Delete resolved records older than `olderThanMs` (by resolvedAt, else mtime); the ids removed. */
export async function sweepResolved(team: Team, opts: { olderThanMs?: number; now?: Clock } = {}): Promise<string[]> {
  const paths = team.paths;
  const limit = opts.olderThanMs ?? 3_600_000;
  const t = (opts.now ?? systemClock)();
  for (const d of [paths.permissions, paths.resolved]) refuseLinkedDir(d); // it deletes files there
  let names: string[];
  try {
    names = await fs.readdir(paths.resolved);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const removed: string[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const file = `${paths.resolved}/${name}`;
    const at = await resolvedAtOf(file);
    if (at === undefined || t - at < limit) continue;
    await fs.rm(file, { force: true });
    removed.push(name.slice(0, -'.json'.length));
  }
  return removed;
}

async function resolvedAtOf(file: string): Promise<number | undefined> {
  try {
    const parsed = ResolvedRequestSchema.safeParse(JSON.parse(await fs.readFile(file, 'utf8')));
    if (parsed.success) return parsed.data.resolvedAt;
    return (await fs.stat(file)).mtimeMs;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    return (await fs.stat(file).catch(() => undefined))?.mtimeMs;
  }
}
