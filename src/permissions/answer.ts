// Worker side, pure: judging what claims to be the leader's answer to a permission request.
//
// Two carriers (docs/protocol.md#permission-requests step 3): the signed `resolved/<id>.json` record, and a `permission_response`
// frame in the worker's inbox whose entry carries a valid `lead_sig`. Either is accepted only when
// the leader's signature verifies. A resolved record must also be about THIS request: same id, team,
// worker, tool, tool_use_id and input (canonical JSON) — so a validly signed record for another
// request, or for a pending file someone edited before the leader saw it, is refused too. A frame
// that allows must bind to the worker's own input: its `input_sha256`, when present, must be the
// digest of that input, and an `updated_input` other than that input (an edit by the leader) counts
// only with a matching digest. So an input the person did not see is never run.
import { parseControl } from '../protocol/control.js';
import type { InboxMessage } from '../protocol/message.js';
import { ResolvedRequestSchema } from '../protocol/permission.js';
import { messageKey } from '../protocol/message.js';
import { canonicalJson, inputDigest, verifyEntry, verifyRecord, type ParsedVerifyKey } from './signing.js';

export type Answer =
  | {
      decision: 'allow';
      /** resolvedBy of the record, `team-lead` for a frame, `rule` for a rule. */
      by: string;
      updatedInput?: Record<string, unknown>;
      feedback?: string;
      permissionUpdates?: unknown[];
    }
  | { decision: 'deny'; by: string; feedback: string };

export type Verdict = { ok: true; answer: Answer } | { ok: false; reason: string };

/** What the worker asked, to compare a resolution against. */
export interface AskedRequest {
  id: string;
  teamName: string;
  workerName: string;
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
}

export const DEFAULT_DENY_FEEDBACK = 'denied by team-lead';

/** Equal as canonical JSON (false when either is not JSON). */
export function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/** Judge the text of a `resolved/<id>.json` file. */
export function judgeResolved(text: string, asked: AskedRequest, key: ParsedVerifyKey): Verdict {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, reason: 'not a JSON object' };
  if (typeof (json as { signature?: unknown }).signature !== 'string') return { ok: false, reason: 'unsigned' };
  // Verify the bytes as written, before zod adds any default.
  if (!verifyRecord(json, key)) return { ok: false, reason: 'signature does not verify (wrong key, or content changed after signing)' };
  const parsed = ResolvedRequestSchema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: `unexpected shape: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const r = parsed.data;
  const mismatch: string[] = [];
  if (r.id !== asked.id) mismatch.push('id');
  if (r.teamName !== asked.teamName) mismatch.push('teamName');
  if (r.workerName !== asked.workerName) mismatch.push('workerName');
  if (r.toolName !== asked.toolName) mismatch.push('toolName');
  if (r.toolUseId !== asked.toolUseId) mismatch.push('toolUseId');
  if (!sameJson(r.input, asked.input)) mismatch.push('input');
  if (mismatch.length > 0) return { ok: false, reason: `signed, but for a different request (${mismatch.join(', ')} differ)` };
  if (r.status === 'approved') {
    return {
      ok: true,
      answer: {
        decision: 'allow',
        by: r.resolvedBy,
        ...(r.updatedInput ? { updatedInput: r.updatedInput } : {}),
        ...(r.feedback ? { feedback: r.feedback } : {}),
        ...(r.permissionUpdates ? { permissionUpdates: r.permissionUpdates } : {}),
      },
    };
  }
  return { ok: true, answer: { decision: 'deny', by: r.resolvedBy, feedback: r.feedback || DEFAULT_DENY_FEEDBACK } };
}

export interface FrameFound {
  entry: InboxMessage;
  answer: Answer;
}

export interface FrameRejected {
  entry: InboxMessage;
  key: string;
  reason: string;
}

/** Why an allowing frame does not bind to the input the worker asked about, or undefined. */
function unboundInput(digest: string | undefined, updated: Record<string, unknown> | undefined, asked: Pick<AskedRequest, 'input'>): string | undefined {
  if (digest !== undefined && digest !== inputDigest(asked.input)) {
    return 'signed, but it decides a different input than this worker asked for (the pending file was changed before team-lead read it?)';
  }
  if (updated !== undefined && !sameJson(updated, asked.input) && digest === undefined) {
    return 'signed, but it replaces the input without saying which request input it decided';
  }
  return undefined;
}

/**
 * Look through inbox entries for the `permission_response` to request `asked.id`. The first one
 * from `team-lead` with a valid `lead_sig` that binds to the asked input wins; every other response
 * to that id is returned as rejected.
 */
export function findResponseFrame(
  entries: readonly InboxMessage[],
  asked: Pick<AskedRequest, 'id' | 'input'>,
  key: ParsedVerifyKey,
): { found?: FrameFound; rejected: FrameRejected[] } {
  const rejected: FrameRejected[] = [];
  for (const entry of entries) {
    const parsed = parseControl(entry.text);
    if (parsed.kind !== 'control' || parsed.message.type !== 'permission_response') continue;
    const m = parsed.message;
    if (m.request_id !== asked.id) continue;
    const reject = (reason: string): void => void rejected.push({ entry, key: messageKey(entry), reason });
    if (entry.from !== 'team-lead') {
      reject(`response from "${entry.from}", not team-lead`);
      continue;
    }
    if (!verifyEntry(entry, key)) {
      reject(entry.lead_sig ? 'lead_sig does not verify' : 'no lead_sig');
      continue;
    }
    const unbound = m.subtype === 'success' ? unboundInput(m.input_sha256, m.response.updated_input, asked) : undefined;
    if (unbound) {
      reject(unbound);
      continue;
    }
    const answer: Answer =
      m.subtype === 'success'
        ? {
            decision: 'allow',
            by: m.resolved_by ?? 'team-lead',
            ...(m.response.updated_input ? { updatedInput: m.response.updated_input } : {}),
            ...(m.response.permission_updates ? { permissionUpdates: m.response.permission_updates } : {}),
          }
        : { decision: 'deny', by: m.resolved_by ?? 'team-lead', feedback: m.error || DEFAULT_DENY_FEEDBACK };
    return { found: { entry, answer }, rejected };
  }
  return { rejected };
}

/** A `permission_response` to a request already in the worker's inbox, and who wrote it. */
export interface PriorResponse {
  entry: InboxMessage;
  decision: 'allow' | 'deny';
  /** `team-lead (Claude Code)` for an unsigned frame, else `team-lead`. */
  by: string;
}

/**
 * The response to `asked` already in the worker's inbox that the worker acts on: one from team-lead
 * that findResponseFrame accepts (valid `lead_sig`, bound to the asked input), or, when the worker
 * is a Claude Code teammate (`unsignedCounts`: it asked through an inbox frame only), an unsigned
 * one, which is how a Claude Code leader answers. Without `key` only unsigned ones are looked for.
 */
export function priorResponse(
  entries: readonly InboxMessage[],
  asked: Pick<AskedRequest, 'id' | 'input'>,
  key: ParsedVerifyKey | undefined,
  unsignedCounts: boolean,
): PriorResponse | undefined {
  if (unsignedCounts) {
    for (const entry of entries) {
      if (entry.from !== 'team-lead' || entry.lead_sig) continue;
      const parsed = parseControl(entry.text);
      if (parsed.kind !== 'control' || parsed.message.type !== 'permission_response' || parsed.message.request_id !== asked.id) continue;
      return { entry, decision: parsed.message.subtype === 'success' ? 'allow' : 'deny', by: 'team-lead (Claude Code)' };
    }
  }
  const found = key ? findResponseFrame(entries, asked, key).found : undefined;
  return found ? { entry: found.entry, decision: found.answer.decision, by: 'team-lead' } : undefined;
}
