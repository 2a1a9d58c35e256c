// Leader side: what is waiting for a decision.
//
// listPending first materialises requests that exist only as `permission_request` frames in
// team-lead's inbox (a real Claude Code teammate writes nothing else, docs/protocol.md#permission-requests item 4): for each
// such frame whose request_id has no pending file, no resolved file and no ending audit event, it
// creates `pending/<request_id>.json` (worker = the entry's sender, `source: "inbox"`) with exclusive
// create under the request's lock — the lock a decider holds while it writes the resolved file and
// removes the pending one, and the ending audit line is written under that lock too, so a request
// that was just decided is never resurrected and two leaders never create it twice.
//
// A Claude Code leader answers such a request with an unsigned `permission_response` in the
// teammate's inbox and writes nothing else: a frame answered that way is not materialised, and a
// pending record it answers is ended with that decision (audited `by: "team-lead (Claude Code)"`)
// when listed, so `swarm permissions` never shows what the teammate has already been told.
//
// A request is `orphaned` when its worker is gone: no longer a member of the team, or its pid
// (`workerPid` in the record, else the member's `pid` in config.json) is not a live process.
import { parseControl } from '../protocol/control.js';
import { SwarmError } from '../protocol/errors.js';
import { isSafeRequestId, systemClock, type Clock } from '../protocol/ids.js';
import { agentId, LEAD_NAME, MEMBER_NAME_RE, RESERVED_MEMBER_NAMES } from '../protocol/names.js';
import type { TeamConfig } from '../protocol/config.js';
import type { PendingRequest } from '../protocol/permission.js';
import type { InboxMessage } from '../protocol/message.js';
import { Mailbox } from '../mailbox/mailbox.js';
import { fileExists } from '../storage/atomic.js';
import { withFileLock } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';
import { findMember, readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { endedRequests, readAudit } from './audit.js';
import { isProcessAlive } from '../storage/pid.js';
import { createPendingExclusive, endPending, pendingIds, readPending } from './pending.js';
import { priorResponse } from './answer.js';

export type PendingView = PendingRequest & { ageMs: number; orphaned: boolean };

export interface ListPendingOptions {
  now?: Clock;
  /** Liveness probe for worker pids (default: signal 0). */
  isAlive?: (pid: number) => boolean;
  /** A pending file that could not be used (corrupt, or its id does not match its name). */
  onProblem?: (message: string) => void;
  /** config.json as the caller just read it (default: read here). */
  config?: TeamConfig;
}

export function isWorkerName(name: string): boolean {
  return MEMBER_NAME_RE.test(name) && !(RESERVED_MEMBER_NAMES as readonly string[]).includes(name.toLowerCase());
}

/**
 * The requests that exist only as `permission_request` frames in team-lead's inbox: no pending
 * file, no resolved file, no ending audit event, no response in the worker's inbox. Reads only
 * (`swarm doctor`); materialiseInboxRequests creates their records.
 */
export async function inboxOnlyRequests(team: Team, config: TeamConfig, now: Clock = systemClock): Promise<PendingRequest[]> {
  const { records, known } = await inboxRequests(team, config, now);
  if (records.length === 0) return [];
  const ended = endedRequests(await readAudit(team.paths));
  const out: PendingRequest[] = [];
  for (const record of records) if (!(await known(record, ended))) out.push(record);
  return out;
}

/**
 * Create pending records for `permission_request` frames in team-lead's inbox that have none.
 * Returns the ids it created.
 */
export async function materialiseInboxRequests(team: Team, config: TeamConfig, now: Clock = systemClock): Promise<string[]> {
  const paths = team.paths;
  const { records: frames, known } = await inboxRequests(team, config, now);
  if (frames.length === 0) return [];
  const endedNow = endedRequests(await readAudit(paths));
  const created: string[] = [];
  for (const record of frames) {
    if (await known(record, endedNow)) continue;
    const made = await withFileLock(paths.pendingFile(record.id), async () => {
      if (await known(record, endedRequests(await readAudit(paths)))) return false;
      return createPendingExclusive(paths, record);
    });
    if (made) created.push(record.id);
  }
  return created;
}

type KnownRequest = (record: PendingRequest, ended: ReadonlyMap<string, unknown>) => Promise<boolean>;

/** The `permission_request` frames of team-lead's inbox as pending records, and whether one is already known elsewhere. */
async function inboxRequests(team: Team, config: TeamConfig, now: Clock): Promise<{ records: PendingRequest[]; known: KnownRequest }> {
  const paths = team.paths;
  const mailbox = new Mailbox({ team });
  const entries = await mailbox.read(LEAD_NAME);
  const frames: PendingRequest[] = [];
  for (const entry of entries) {
    const parsed = parseControl(entry.text);
    if (parsed.kind !== 'control' || parsed.message.type !== 'permission_request') continue;
    const f = parsed.message;
    if (!isSafeRequestId(f.request_id) || !isWorkerName(entry.from)) continue;
    const member = findMember(config, entry.from);
    const at = Date.parse(entry.timestamp);
    const color = entry.color ?? member?.color;
    const cwd = member?.cwd;
    frames.push({
      id: f.request_id,
      workerId: agentId(member?.name ?? entry.from, team.name),
      workerName: member?.name ?? entry.from,
      ...(color ? { workerColor: color } : {}),
      teamName: team.name,
      toolName: f.tool_name,
      toolUseId: f.tool_use_id,
      description: f.description,
      input: f.input,
      permissionSuggestions: f.permission_suggestions,
      status: 'pending',
      createdAt: Number.isFinite(at) ? at : now(),
      source: 'inbox',
      ...(cwd && cwd.startsWith('/') ? { cwd } : {}),
    });
  }
  const answered = new Map<string, readonly InboxMessage[]>();
  const inboxOf = async (name: string): Promise<readonly InboxMessage[]> => {
    if (!answered.has(name)) answered.set(name, await mailbox.read(name));
    return answered.get(name)!;
  };
  const known: KnownRequest = async ({ id, workerName }, ended) =>
    ended.has(id) ||
    (await fileExists(paths.pendingFile(id))) ||
    (await fileExists(paths.resolvedFile(id))) ||
    priorResponse(await inboxOf(workerName), { id, input: {} }, undefined, true) !== undefined;
  return { records: frames, known };
}

/** Pending requests, oldest first, with their age and whether their worker is gone. */
export async function listPending(team: Team, opts: ListPendingOptions = {}): Promise<PendingView[]> {
  const now = opts.now ?? systemClock;
  const isAlive = opts.isAlive ?? isProcessAlive;
  const config = opts.config ?? (await readTeam(team));
  await materialiseInboxRequests(team, config, now);
  const paths = team.paths;
  const t = now();
  const out: PendingView[] = [];
  const mailbox = new Mailbox({ team });
  for (const id of await pendingIds(paths)) {
    const record = await readRecord(paths, id, opts.onProblem);
    if (!record) continue;
    if (record.source === 'inbox' && (await endIfClaudeCodeAnswered(paths, mailbox, record, t))) continue;
    out.push({ ...record, ageMs: Math.max(0, t - record.createdAt), orphaned: isOrphaned(config, record, isAlive) });
  }
  return out.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** End `record` when a Claude Code leader's response to it is in the worker's inbox; true if it was answered. */
async function endIfClaudeCodeAnswered(paths: TeamPaths, mailbox: Mailbox, record: PendingRequest, at: number): Promise<boolean> {
  const prior = priorResponse(await mailbox.read(record.workerName), record, undefined, true);
  if (!prior) return false;
  const status = prior.decision === 'allow' ? 'approved' : 'rejected';
  await endPending(paths, record.id, { event: 'decision', id: record.id, at, worker: record.workerName, toolName: record.toolName, status, by: prior.by });
  return true;
}

async function readRecord(paths: TeamPaths, id: string, onProblem?: (message: string) => void): Promise<PendingRequest | undefined> {
  let record: PendingRequest | undefined;
  try {
    record = await readPending(paths, id);
  } catch (e) {
    if (e instanceof SwarmError && e.kind === 'corrupt') {
      onProblem?.(e.message);
      return undefined;
    }
    throw e;
  }
  if (record && record.id !== id) {
    onProblem?.(`${paths.pendingFile(id)} holds request "${record.id}", not "${id}"; ignored`);
    return undefined;
  }
  return record;
}

export function isOrphaned(config: TeamConfig, record: PendingRequest, isAlive: (pid: number) => boolean): boolean {
  const member = findMember(config, record.workerName);
  if (!member) return true;
  if (member.host !== undefined) return false; // its pid is another machine's: not judged here
  const pid = record.workerPid ?? member.pid;
  return pid !== undefined && !isAlive(pid);
}
