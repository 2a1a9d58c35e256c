// Id generators (docs/protocol.md#names-and-ids). Random parts come from node:crypto so two processes in the same
// millisecond never collide. The clock is a parameter so tests can pin it.
import { randomBytes, randomUUID } from 'node:crypto';

export type Clock = () => number;
export const systemClock: Clock = () => Date.now();

export function newMsgId(): string {
  return randomUUID();
}

export function newPermissionId(now: number = Date.now()): string {
  return `perm-${now}-${randomBytes(6).toString('hex')}`;
}

export function newShutdownId(name: string, now: number = Date.now()): string {
  return `shutdown-${now}@${name}`;
}

export function newPlanApprovalId(name: string, team: string, now: number = Date.now()): string {
  return `plan_approval-${now}@${name}@${team}`;
}

export function newSessionId(): string {
  return randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A session id as Claude Code takes it (`--session-id`, `--resume`): a UUID, so also a safe file name. */
export function isSessionId(id: string): boolean {
  return UUID_RE.test(id);
}

export const REQUEST_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,200}$/;

/** A request id is safe to use as a file name: no separators, no `..`. */
export function isSafeRequestId(id: string): boolean {
  return REQUEST_ID_RE.test(id) && !id.includes('..');
}
