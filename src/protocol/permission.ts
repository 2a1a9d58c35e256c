// Permission request records (docs/protocol.md#permission-requests): permissions/pending/<id>.json and resolved/<id>.json.
import * as z from 'zod';

export const PendingRequestSchema = z.looseObject({
  id: z.string(),
  workerId: z.string(),
  workerName: z.string(),
  workerColor: z.string().optional(),
  teamName: z.string(),
  toolName: z.string(),
  toolUseId: z.string().default(''),
  description: z.string().default(''),
  input: z.record(z.string(), z.unknown()).default({}),
  permissionSuggestions: z.array(z.unknown()).default([]),
  status: z.literal('pending'),
  createdAt: z.number(),
  /** Set when the record was materialised from an inbox frame (a Claude Code teammate). */
  source: z.enum(['file', 'inbox']).optional(),
  workerPid: z.number().int().optional(),
  cwd: z.string().optional(),
});
export type PendingRequest = z.infer<typeof PendingRequestSchema>;

export const ResolvedRequestSchema = z.looseObject({
  id: z.string(),
  workerId: z.string(),
  workerName: z.string(),
  teamName: z.string(),
  toolName: z.string(),
  toolUseId: z.string().default(''),
  input: z.record(z.string(), z.unknown()).default({}),
  status: z.enum(['approved', 'rejected']),
  resolvedBy: z.string(),
  resolvedAt: z.number(),
  feedback: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  permissionUpdates: z.array(z.unknown()).optional(),
  signature: z.string().optional(),
});
export type ResolvedRequest = z.infer<typeof ResolvedRequestSchema>;

/**
 * One line of permissions/audit.jsonl. `request` and `decision` are the normal pair (a rule decision
 * has both, with `rule` and `by: "rule"`); `timeout` is a worker that stopped waiting, `cancelled` a
 * worker whose wait was aborted or whose request vanished, `cleared` an orphaned request removed by
 * the leader, `forged` a resolution or response frame that failed verification (kept aside, never
 * acted on), `acted` the worker's own line once it acts on a verified answer (`status` allow|deny).
 * Around requests: `rule` (id = the rule, `status` added|removed, `list` allow|deny), `plan` (id =
 * the plan request, `status` approved|rejected, `mode`), `shutdown` (id = the shutdown request,
 * `status` requested|approved|grace_exit|rejected|timeout|killed|already_gone), `mode` (id = the
 * msg_id of a mode_set_request a teammate obeyed, `mode`). `prev` chains the lines (permissions/audit.ts).
 */
export const AuditEventSchema = z.looseObject({
  event: z.enum(['request', 'decision', 'timeout', 'cleared', 'cancelled', 'forged', 'acted', 'rule', 'plan', 'shutdown', 'mode']),
  id: z.string(),
  at: z.number(),
  worker: z.string().optional(),
  toolName: z.string().optional(),
  status: z.string().optional(),
  by: z.string().optional(),
  feedback: z.string().optional(),
  rule: z.string().optional(),
  /** Why a resolution was rejected (forged) or a request ended without a decision. */
  reason: z.string().optional(),
  list: z.enum(['allow', 'deny']).optional(),
  mode: z.string().optional(),
  /** lineDigest of the line before (permissions/audit.ts). */
  prev: z.string().optional(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;
