// Worker side of a permission request (docs/protocol.md#permission-requests): what the teammate runtime calls before a tool
// that needs approval.
//
// 1. Team rules (config.json `swarm.rules`) first: a matching deny or allow rule decides at once;
//    the request and the decision are both written to audit.jsonl, nothing else.
// 2. Otherwise: `pending/<id>.json` (atomic, 0600), a `permission_request` frame to team-lead's inbox,
//    a `request` audit line; then wait — inotify + poll on `resolved/` and on the worker's inbox — for
//    either the signed `resolved/<id>.json` or a signed `permission_response` frame for this id.
//    Anything that fails verification is logged (onEvent + a `forged` audit line) and never acted
//    on: a bad resolved file is moved to `resolved/<id>.json.rejected-<ms>` (under the request's lock,
//    so a real decision written meanwhile is never the one moved) and the wait goes on; a bad frame
//    is left unread for the runtime, which shows it as unverified.
// 3. On a verified answer: the resolved file is deleted, the frame consumed (only that frame: other
//    messages stay unread), and the decision returned.
// Abort: the pending file is removed (audit `cancelled`) and the promise rejects with the reason.
// `timeoutMs`: the same, with audit `timeout`, and the result is a deny "no answer within <n>s".
// If the request vanishes without an answer (the leader cleared it as orphaned), the result is a deny.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { encodeControl } from '../protocol/control.js';
import { errnoCode, isSwarmError, SwarmError } from '../protocol/errors.js';
import { newPermissionId, systemClock, type Clock } from '../protocol/ids.js';
import { agentId, assertMemberName, LEAD_NAME } from '../protocol/names.js';
import type { AuditEvent, PendingRequest } from '../protocol/permission.js';
import { Mailbox } from '../mailbox/mailbox.js';
import { fileExists, keepAside } from '../storage/atomic.js';
import { DirWatcher } from '../storage/watch.js';
import { withFileLock } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';
import { readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { findResponseFrame, judgeResolved, sameJson, type Answer, type AskedRequest } from './answer.js';
import { appendAudit, endingEvent, noAnswerWithin } from './audit.js';
import { createPendingExclusive, endPending, writePending } from './pending.js';
import { evaluateWithReason, type Evaluation } from './rules.js';
import { parseVerifyKey, type ParsedVerifyKey } from './signing.js';

export interface RequestPermissionOptions {
  team: Team;
  workerName: string;
  workerColor?: string;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  description: string;
  suggestions?: unknown[];
  /** The worker's absolute working directory (rules resolve relative paths against it). */
  cwd: string;
  /** The leader's `--lead-verify-key` (`<createdAtMs>.<base64url SPKI DER>`). */
  verifyKey: string;
  signal?: AbortSignal;
  /** Stop waiting after this long: the request is withdrawn and the answer is a deny. */
  timeoutMs?: number;
  onEvent?: (event: PermissionEvent) => void;
  now?: Clock;
  /** Poll interval of the fallback re-check, ms (default 1000). */
  pollMs?: number;
  /** Poll only, no inotify (network file systems; the benchmark's baseline). */
  noWatch?: boolean;
  /** Recorded in the pending file so the leader can tell an orphaned request (default: this process). */
  workerPid?: number;
}

export type PermissionEvent =
  | { kind: 'rule'; id: string; decision: 'allow' | 'deny'; rule: string }
  | { kind: 'rules_error'; message: string }
  | { kind: 'requested'; id: string; file: string }
  | { kind: 'rejected'; id: string; source: 'resolved' | 'inbox'; reason: string; keptAs?: string }
  | { kind: 'answered'; id: string; decision: 'allow' | 'deny'; source: 'resolved' | 'inbox' };

export type PermissionResult = Answer & {
  id: string;
  /** Where the answer came from. */
  source: 'rule' | 'resolved' | 'inbox' | 'timeout' | 'withdrawn';
  /** The rule that decided, for source `rule`. */
  rule?: string;
};

export async function requestPermission(opts: RequestPermissionOptions): Promise<PermissionResult> {
  const key = parseVerifyKey(opts.verifyKey);
  assertMemberName(opts.workerName);
  if (!path.posix.isAbsolute(opts.cwd)) {
    throw new SwarmError('invalid_input', `permission request cwd: expected an absolute path, got ${JSON.stringify(opts.cwd)}`);
  }
  opts.signal?.throwIfAborted();
  const now = opts.now ?? systemClock;
  const paths = opts.team.paths;
  const id = newPermissionId(now());
  const byRule = await decideByRule(paths, id, opts, now);
  if (byRule) return byRule;

  // Watch before writing, so an answer that lands at once is never missed.
  const watchOpts = { pollMs: opts.pollMs ?? 1000, ...(opts.noWatch ? { noWatch: true } : {}) };
  const watchers = await Promise.all([
    DirWatcher.open(paths.resolved, { ...watchOpts, file: `${id}.json` }),
    DirWatcher.open(paths.inboxes, { ...watchOpts, file: `${opts.workerName}.json` }),
  ]);
  try {
    await announce(paths, id, opts, now);
    return await waitForAnswer(paths, id, key, opts, now, watchers);
  } finally {
    await Promise.all(watchers.map((w) => w.close()));
  }
}

async function decideByRule(paths: TeamPaths, id: string, opts: RequestPermissionOptions, now: Clock): Promise<PermissionResult | undefined> {
  const config = await readTeam(opts.team);
  const rules = config.swarm?.rules ?? { allow: [], deny: [] };
  let evaluation: Evaluation;
  try {
    evaluation = evaluateWithReason(rules, { toolName: opts.toolName, input: opts.input, cwd: opts.cwd });
  } catch (e) {
    if (!isSwarmError(e, 'invalid_input')) throw e;
    opts.onEvent?.({ kind: 'rules_error', message: `${e.message}; asking team-lead instead` });
    return undefined;
  }
  if (evaluation.decision === 'ask' || evaluation.rule === undefined) return undefined;
  const at = now();
  const status = evaluation.decision === 'allow' ? 'approved' : 'rejected';
  const common = { id, worker: opts.workerName, toolName: opts.toolName };
  await appendAudit(paths, { event: 'request', at, ...common }, { event: 'decision', at, ...common, status, by: 'rule', rule: evaluation.rule });
  opts.onEvent?.({ kind: 'rule', id, decision: evaluation.decision, rule: evaluation.rule });
  if (evaluation.decision === 'allow') return { decision: 'allow', by: 'rule', id, source: 'rule', rule: evaluation.rule };
  return { decision: 'deny', by: 'rule', feedback: `denied by team rule ${evaluation.rule}`, id, source: 'rule', rule: evaluation.rule };
}

/** The worker's own record of request `id`: what it asked, as it asked it. */
function ownRecord(id: string, opts: RequestPermissionOptions, createdAt: number): PendingRequest {
  return {
    id,
    workerId: agentId(opts.workerName, opts.team.name),
    workerName: opts.workerName,
    ...(opts.workerColor ? { workerColor: opts.workerColor } : {}),
    teamName: opts.team.name,
    toolName: opts.toolName,
    toolUseId: opts.toolUseId,
    description: opts.description,
    input: opts.input,
    permissionSuggestions: opts.suggestions ?? [],
    status: 'pending',
    createdAt,
    source: 'file',
    workerPid: opts.workerPid ?? process.pid,
    cwd: opts.cwd,
  };
}

async function announce(paths: TeamPaths, id: string, opts: RequestPermissionOptions, now: Clock): Promise<void> {
  const createdAt = now();
  await writePending(paths, ownRecord(id, opts, createdAt));
  try {
    // The frame (which wakes the leader) and the audit line are independent: write them together.
    const frame = new Mailbox({ team: opts.team }).append(LEAD_NAME, {
      from: opts.workerName,
      text: encodeControl({
        type: 'permission_request',
        request_id: id,
        agent_id: opts.workerName,
        tool_name: opts.toolName,
        tool_use_id: opts.toolUseId,
        description: opts.description,
        input: opts.input,
        permission_suggestions: opts.suggestions ?? [],
      }),
      ...(opts.workerColor ? { color: opts.workerColor } : {}),
    });
    const audited = appendAudit(paths, { event: 'request', id, at: createdAt, worker: opts.workerName, toolName: opts.toolName });
    const [f, a] = await Promise.allSettled([frame, audited]);
    if (f.status === 'rejected') throw f.reason;
    if (a.status === 'rejected') throw a.reason;
  } catch (e) {
    await endPending(paths, id, { event: 'cancelled', id, at: now(), worker: opts.workerName, reason: `could not ask team-lead: ${(e as Error).message}` }).catch(() => false);
    throw e;
  }
  opts.onEvent?.({ kind: 'requested', id, file: paths.pendingFile(id) });
}

/** Resolves when any watcher reports a change, or after `ms`; rejects only on abort. */
async function anyChanged(watchers: DirWatcher[], signal: AbortSignal | undefined, ms: number): Promise<void> {
  signal?.throwIfAborted();
  const ac = new AbortController();
  const onAbort = (): void => ac.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race(watchers.map((w) => w.changed(ac.signal, Math.max(1, ms))));
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    if (!isSwarmError(e, 'timeout')) throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    ac.abort(); // drop the losers' waits
  }
}

async function waitForAnswer(
  paths: TeamPaths,
  id: string,
  key: ParsedVerifyKey,
  opts: RequestPermissionOptions,
  now: Clock,
  watchers: DirWatcher[],
): Promise<PermissionResult> {
  const asked: AskedRequest = {
    id,
    teamName: opts.team.name,
    workerName: opts.workerName,
    toolName: opts.toolName,
    toolUseId: opts.toolUseId,
    input: opts.input,
  };
  const mailbox = new Mailbox({ team: opts.team });
  const loggedFrames = new Set<string>();
  const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
  const pollMs = opts.pollMs ?? 1000;
  let forged = false; // a decision for this id was refused: if it also removed the pending file, ask again
  const audit = (e: Omit<AuditEvent, 'id' | 'at' | 'worker'>): Promise<void> => {
    if (e.event === 'forged') forged = true;
    return appendAudit(paths, { ...e, id, at: now(), worker: opts.workerName } as AuditEvent);
  };

  const check = async (): Promise<PermissionResult | 'withdrawn' | undefined> => {
    const stillPending = await fileExists(paths.pendingFile(id));
    const fromFile = await checkResolvedFile(paths, asked, key, opts, audit);
    if (fromFile) {
      await takeFrame(mailbox, opts.workerName, asked, key, false);
      await audit({ event: 'acted', status: fromFile.decision, by: fromFile.by, reason: 'signed resolved file' });
      return { ...fromFile, id, source: 'resolved' };
    }
    const entries = await mailbox.read(opts.workerName);
    const { found, rejected } = findResponseFrame(entries, asked, key);
    for (const r of rejected) {
      if (loggedFrames.has(r.key)) continue;
      loggedFrames.add(r.key);
      await audit({ event: 'forged', reason: `permission_response frame: ${r.reason}`, by: r.entry.from });
      opts.onEvent?.({ kind: 'rejected', id, source: 'inbox', reason: r.reason });
    }
    if (found) {
      await takeFrame(mailbox, opts.workerName, asked, key, true);
      await fs.rm(paths.resolvedFile(id), { force: true });
      opts.onEvent?.({ kind: 'answered', id, decision: found.answer.decision, source: 'inbox' });
      const answer = { ...found.answer };
      // The leader echoes the input as updated_input (Claude Code expects it); unchanged means none.
      if (answer.decision === 'allow' && sameJson(answer.updatedInput, opts.input)) delete answer.updatedInput;
      await audit({ event: 'acted', status: answer.decision, by: answer.by, reason: `signed permission_response${answer.decision === 'allow' && answer.updatedInput ? ' with an edited input' : ''}` });
      return { ...answer, id, source: 'inbox' };
    }
    return stillPending ? undefined : 'withdrawn';
  };

  for (;;) {
    let result: PermissionResult | 'withdrawn' | undefined;
    try {
      result = await check();
    } catch (e) {
      await cancel(paths, id, opts, now, `worker error: ${(e as Error).message}`);
      throw e;
    }
    if (result === 'withdrawn' && forged) {
      forged = false;
      await askAgain(paths, id, opts, now);
    } else if (result === 'withdrawn') {
      const gone = await withdrawn(paths, id, opts.workerName, now);
      if (gone) return gone; // else: decided, the response frame is on its way
    } else if (result) {
      return result;
    }
    if (Date.now() >= deadline) {
      const feedback = noAnswerWithin(opts.timeoutMs ?? 0);
      const ended = await endPending(paths, id, { event: 'timeout', id, at: now(), worker: opts.workerName, reason: feedback });
      const late = ended ? undefined : await check(); // decided meanwhile: take that answer
      if (late && late !== 'withdrawn') return late;
      return { decision: 'deny', by: 'timeout', feedback, id, source: 'timeout' };
    }
    try {
      await anyChanged(watchers, opts.signal, Math.min(pollMs, deadline - Date.now()));
    } catch (e) {
      await cancel(paths, id, opts, now, 'aborted by the worker');
      throw e;
    }
  }
}

/** Verified answer from resolved/<id>.json (file deleted), or undefined; a forged file is moved aside. */
async function checkResolvedFile(
  paths: TeamPaths,
  asked: AskedRequest,
  key: ParsedVerifyKey,
  opts: RequestPermissionOptions,
  audit: (e: Omit<AuditEvent, 'id' | 'at' | 'worker'>) => Promise<void>,
): Promise<Answer | undefined> {
  const file = paths.resolvedFile(asked.id);
  const text = await readText(file);
  if (text === undefined) return undefined;
  const verdict = judgeResolved(text, asked, key);
  if (verdict.ok) {
    await fs.rm(file, { force: true });
    opts.onEvent?.({ kind: 'answered', id: asked.id, decision: verdict.answer.decision, source: 'resolved' });
    return verdict.answer;
  }
  // Under the request's lock (the one the leader holds while writing a real decision), and only if
  // the file still holds the bytes we judged: otherwise a real decision replaced it; re-check.
  const keptAs = await withFileLock(paths.pendingFile(asked.id), async () => {
    if ((await readText(file)) !== text) return undefined;
    return keepAside(file, 'rejected');
  });
  if (keptAs === undefined) return checkResolvedFile(paths, asked, key, opts, audit);
  await audit({ event: 'forged', reason: `resolved file: ${verdict.reason}; kept as ${path.basename(keptAs)}` });
  opts.onEvent?.({ kind: 'rejected', id: asked.id, source: 'resolved', reason: verdict.reason, keptAs });
  return undefined;
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * Consume the verified response frame for `id` (only that one; everything else stays unread for the
 * runtime). With `mustExist` false it first checks, lock-free, that the frame is there at all.
 */
async function takeFrame(mailbox: Mailbox, name: string, asked: AskedRequest, key: ParsedVerifyKey, mustExist: boolean): Promise<void> {
  if (!mustExist && !findResponseFrame(await mailbox.read(name), asked, key).found) return;
  await mailbox.consume(name, (m) => findResponseFrame([m], asked, key).found !== undefined);
}

async function cancel(paths: TeamPaths, id: string, opts: RequestPermissionOptions, now: Clock, reason: string): Promise<void> {
  await endPending(paths, id, { event: 'cancelled', id, at: now(), worker: opts.workerName, reason }).catch(() => false);
  await fs.rm(paths.resolvedFile(id), { force: true }).catch(() => undefined);
}

/**
 * A decision that did not bind to this request ended it on the leader's side (pending file removed):
 * put the worker's own record back, under the request's lock, so the person sees what was really
 * asked and can decide that. The `request` audit line reopens the id (audit.endedRequests), and
 * only then is `requested` reported.
 */
async function askAgain(paths: TeamPaths, id: string, opts: RequestPermissionOptions, now: Clock): Promise<void> {
  const asked = await withFileLock(paths.pendingFile(id), async () => {
    if (await fileExists(paths.pendingFile(id))) return false;
    if ((await endingEvent(paths, id))?.event !== 'decision') return false; // cleared, timed out or removed: not ours to reopen
    await createPendingExclusive(paths, ownRecord(id, opts, now()));
    await appendAudit(paths, { event: 'request', id, at: now(), worker: opts.workerName, toolName: opts.toolName, reason: 'asked again: the decision did not match this request' });
    return true;
  });
  if (asked) opts.onEvent?.({ kind: 'requested', id, file: paths.pendingFile(id) });
}

/**
 * The pending file is gone and no answer came: cleared by the leader, removed by hand, or kept aside
 * as corrupt → a deny. Undefined when the audit log shows a decision (its frame has not landed yet).
 * A removal nobody logged is logged here, under the request's lock, as `cancelled`: from then on the
 * leader cannot approve what this worker already gave up on.
 */
async function withdrawn(paths: TeamPaths, id: string, worker: string, now: Clock): Promise<PermissionResult | undefined> {
  const reason = 'its pending file was removed or kept aside as corrupt before a decision';
  const ended = await withFileLock(paths.pendingFile(id), async (): Promise<AuditEvent | 'pending' | undefined> => {
    if (await fileExists(paths.pendingFile(id))) return 'pending';
    const e = await endingEvent(paths, id);
    if (e) return e;
    await appendAudit(paths, { event: 'cancelled', id, at: now(), worker, reason });
    return undefined;
  });
  if (ended === 'pending' || ended?.event === 'decision') return undefined;
  const why = ended ? `request ${ended.event}${ended.by ? ` by ${ended.by}` : ''}${ended.reason ? `: ${ended.reason}` : ''}` : `request withdrawn (${reason})`;
  return { decision: 'deny', by: ended?.by ?? 'unknown', feedback: why, id, source: 'withdrawn' };
}
