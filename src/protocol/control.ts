// Control messages (docs/protocol.md#control-messages): JSON carried in an inbox entry's `text`, field names as Claude
// Code writes them. `parseControl` never throws: plain text and unknown types come back as such,
// so a reader shows them and moves on.
import * as z from 'zod';

export const PermissionRequestFrameSchema = z.looseObject({
  type: z.literal('permission_request'),
  request_id: z.string(),
  agent_id: z.string(),
  tool_name: z.string(),
  tool_use_id: z.string().default(''),
  description: z.string().default(''),
  input: z.record(z.string(), z.unknown()).default({}),
  permission_suggestions: z.array(z.unknown()).default([]),
});

export const PermissionResponseFrameSchema = z.union([
  z.looseObject({
    type: z.literal('permission_response'),
    request_id: z.string(),
    subtype: z.literal('success'),
    /** inputDigest of the input the leader decided (swarm's binding; Claude Code ignores it). */
    input_sha256: z.string().optional(),
    /** Who decided (swarm's; Claude Code ignores it): `team-lead`, or `timeout` for an expired request. */
    resolved_by: z.string().optional(),
    response: z
      .looseObject({
        updated_input: z.record(z.string(), z.unknown()).optional(),
        permission_updates: z.array(z.unknown()).optional(),
      })
      .default({}),
  }),
  z.looseObject({
    type: z.literal('permission_response'),
    request_id: z.string(),
    subtype: z.literal('error'),
    input_sha256: z.string().optional(),
    resolved_by: z.string().optional(),
    error: z.string(),
  }),
]);

export const ShutdownRequestSchema = z.looseObject({
  type: z.literal('shutdown_request'),
  requestId: z.string(),
  from: z.string(),
  reason: z.string().optional(),
  timestamp: z.string(),
});

export const ShutdownApprovedSchema = z.looseObject({
  type: z.literal('shutdown_approved'),
  requestId: z.string(),
  from: z.string(),
  timestamp: z.string(),
  paneId: z.string().optional(),
  backendType: z.string().optional(),
  /**
   * swarm's: true when the model never answered and the teammate exited at the end of its grace
   * period (`note` says so in words); absent when the model approved.
   */
  graceExpired: z.boolean().optional(),
  note: z.string().optional(),
});

export const ShutdownRejectedSchema = z.looseObject({
  type: z.literal('shutdown_rejected'),
  requestId: z.string(),
  from: z.string(),
  reason: z.string(),
  timestamp: z.string(),
});

export const PlanApprovalRequestSchema = z.looseObject({
  type: z.literal('plan_approval_request'),
  from: z.string(),
  timestamp: z.string(),
  planFilePath: z.string().default(''),
  planContent: z.string(),
  requestId: z.string(),
});

export const PlanApprovalResponseSchema = z.looseObject({
  type: z.literal('plan_approval_response'),
  requestId: z.string(),
  approved: z.boolean(),
  feedback: z.string().optional(),
  timestamp: z.string(),
  permissionMode: z.string().optional(),
});

export const IdleNotificationSchema = z.looseObject({
  type: z.literal('idle_notification'),
  from: z.string(),
  timestamp: z.string(),
  idleReason: z.enum(['available', 'interrupted', 'failed']).optional(),
  summary: z.string().optional(),
  completedTaskId: z.string().optional(),
  completedStatus: z.string().optional(),
  failureReason: z.string().optional(),
});

export const ModeSetRequestSchema = z.looseObject({
  type: z.literal('mode_set_request'),
  mode: z.string(),
  from: z.string(),
  /** The teammate it is for; a mode_set_request without it is never obeyed by swarm's runtime. */
  to: z.string().optional(),
});

/** Sent to a task's new owner when `owner` is set (docs/protocol.md#task-list), Claude Code's fields. */
export const TaskAssignmentSchema = z.looseObject({
  type: z.literal('task_assignment'),
  taskId: z.string(),
  subject: z.string(),
  description: z.string().default(''),
  assignedBy: z.string(),
  timestamp: z.string(),
});

export const ControlMessageSchema = z.union([
  PermissionRequestFrameSchema,
  PermissionResponseFrameSchema,
  ShutdownRequestSchema,
  ShutdownApprovedSchema,
  ShutdownRejectedSchema,
  PlanApprovalRequestSchema,
  PlanApprovalResponseSchema,
  IdleNotificationSchema,
  ModeSetRequestSchema,
  TaskAssignmentSchema,
]);

export type PermissionRequestFrame = z.infer<typeof PermissionRequestFrameSchema>;
export type PermissionResponseFrame = z.infer<typeof PermissionResponseFrameSchema>;
export type ShutdownRequest = z.infer<typeof ShutdownRequestSchema>;
export type ShutdownApproved = z.infer<typeof ShutdownApprovedSchema>;
export type ShutdownRejected = z.infer<typeof ShutdownRejectedSchema>;
export type PlanApprovalRequest = z.infer<typeof PlanApprovalRequestSchema>;
export type PlanApprovalResponse = z.infer<typeof PlanApprovalResponseSchema>;
export type IdleNotification = z.infer<typeof IdleNotificationSchema>;
export type ModeSetRequest = z.infer<typeof ModeSetRequestSchema>;
export type TaskAssignment = z.infer<typeof TaskAssignmentSchema>;
export type ControlMessage = z.infer<typeof ControlMessageSchema>;
export type ControlType = ControlMessage['type'];

export const CONTROL_TYPES: readonly ControlType[] = [
  'permission_request',
  'permission_response',
  'shutdown_request',
  'shutdown_approved',
  'shutdown_rejected',
  'plan_approval_request',
  'plan_approval_response',
  'idle_notification',
  'mode_set_request',
  'task_assignment',
];

/** What an entry's text is: plain text, a known control message, or JSON with an unknown/invalid type. */
export type ParsedText =
  | { kind: 'text'; text: string }
  | { kind: 'control'; message: ControlMessage }
  | { kind: 'unknown'; type: string; value: Record<string, unknown>; problem?: string };

export function parseControl(text: string): ParsedText {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return { kind: 'text', text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'text', text };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'text', text };
  const obj = value as Record<string, unknown>;
  if (typeof obj.type !== 'string') return { kind: 'text', text };
  if (!(CONTROL_TYPES as readonly string[]).includes(obj.type)) return { kind: 'unknown', type: obj.type, value: obj };
  const parsed = ControlMessageSchema.safeParse(obj);
  if (!parsed.success) {
    return { kind: 'unknown', type: obj.type, value: obj, problem: parsed.error.issues[0]?.message ?? 'invalid' };
  }
  return { kind: 'control', message: parsed.data };
}

/** Encode a control message as entry text. The `type` field is always present (Claude Code ignores frames without it). */
export function encodeControl(message: ControlMessage): string {
  return JSON.stringify(message);
}
