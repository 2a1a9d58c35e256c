// Control messages (SPEC §3.4): each schema parses a sample in Claude Code's field names;
// parseControl never throws; encodeControl always carries `type`.
import { describe, expect, it } from 'vitest';
import {
  CONTROL_TYPES,
  ControlMessageSchema,
  encodeControl,
  IdleNotificationSchema,
  ModeSetRequestSchema,
  TaskAssignmentSchema,
  parseControl,
  PermissionRequestFrameSchema,
  PermissionResponseFrameSchema,
  PlanApprovalRequestSchema,
  PlanApprovalResponseSchema,
  ShutdownApprovedSchema,
  ShutdownRejectedSchema,
  ShutdownRequestSchema,
  type ControlMessage,
} from '../../src/protocol/index.js';

const ts = '2025-12-02T12:00:00.000Z';

// Samples written with Claude Code's field names (snake_case for permission frames, camelCase elsewhere).
const SAMPLES: { schema: { safeParse: (v: unknown) => { success: boolean } }; sample: Record<string, unknown> }[] = [
  {
    schema: PermissionRequestFrameSchema,
    sample: {
      type: 'permission_request',
      request_id: 'perm-1733140002000-a1b2c3',
      agent_id: 'w1',
      tool_name: 'Bash',
      tool_use_id: 'toolu_01ABC',
      description: 'Run the test suite',
      input: { command: 'npm test' },
      permission_suggestions: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }] }],
    },
  },
  {
    schema: PermissionResponseFrameSchema,
    sample: {
      type: 'permission_response',
      request_id: 'perm-1733140002000-a1b2c3',
      subtype: 'success',
      response: { updated_input: { command: 'npm test -- --run' }, permission_updates: [] },
    },
  },
  {
    schema: PermissionResponseFrameSchema,
    sample: { type: 'permission_response', request_id: 'perm-1733140002000-a1b2c3', subtype: 'error', error: 'not now' },
  },
  {
    schema: ShutdownRequestSchema,
    sample: { type: 'shutdown_request', requestId: 'shutdown-1733140010000@w1', from: 'team-lead', reason: 'done', timestamp: ts },
  },
  {
    schema: ShutdownApprovedSchema,
    sample: {
      type: 'shutdown_approved',
      requestId: 'shutdown-1733140010000@w1',
      from: 'w1',
      timestamp: ts,
      paneId: '%3',
      backendType: 'tmux',
    },
  },
  {
    schema: ShutdownRejectedSchema,
    sample: { type: 'shutdown_rejected', requestId: 'shutdown-1733140010000@w1', from: 'w1', reason: 'still testing', timestamp: ts },
  },
  {
    schema: PlanApprovalRequestSchema,
    sample: {
      type: 'plan_approval_request',
      from: 'w1',
      timestamp: ts,
      planFilePath: '/home/dev/.claude/plans/w1.md',
      planContent: '1. read\n2. fix\n3. test',
      requestId: 'plan_approval-1733140020000@w1@review-squad',
    },
  },
  {
    schema: PlanApprovalResponseSchema,
    sample: {
      type: 'plan_approval_response',
      requestId: 'plan_approval-1733140020000@w1@review-squad',
      approved: false,
      feedback: 'add tests first',
      timestamp: ts,
      permissionMode: 'acceptEdits',
    },
  },
  {
    schema: IdleNotificationSchema,
    sample: {
      type: 'idle_notification',
      from: 'w1',
      timestamp: ts,
      idleReason: 'failed',
      summary: 'stopped',
      completedTaskId: '3',
      completedStatus: 'failed',
      failureReason: 'tests red',
    },
  },
  { schema: ModeSetRequestSchema, sample: { type: 'mode_set_request', mode: 'plan', from: 'team-lead' } },
  {
    schema: TaskAssignmentSchema,
    sample: { type: 'task_assignment', taskId: '3', subject: 'Write the parser', description: 'in src/parse.ts', assignedBy: 'team-lead', timestamp: ts },
  },
];

describe('control message schemas', () => {
  it('cover every control type', () => {
    expect(new Set(SAMPLES.map((s) => s.sample.type))).toEqual(new Set(CONTROL_TYPES));
  });

  it.each(SAMPLES.map((s) => [s.sample.type, s] as const))('%s parses a Claude Code sample', (_type, { schema, sample }) => {
    expect(schema.safeParse(sample).success).toBe(true);
    const parsed = parseControl(JSON.stringify(sample));
    expect(parsed.kind).toBe('control');
    if (parsed.kind === 'control') expect(parsed.message).toMatchObject(sample);
  });

  it('keeps unknown fields of a known control type', () => {
    const parsed = parseControl(JSON.stringify({ ...SAMPLES[3]!.sample, futureField: 42 }));
    expect(parsed.kind === 'control' && (parsed.message as Record<string, unknown>).futureField).toBe(42);
  });

  it('fills Claude Code defaults for a minimal permission_request', () => {
    const m = PermissionRequestFrameSchema.parse({ type: 'permission_request', request_id: 'r1', agent_id: 'w1', tool_name: 'Read' });
    expect(m).toMatchObject({ tool_use_id: '', description: '', input: {}, permission_suggestions: [] });
  });
});

describe('parseControl', () => {
  it.each(['hello', '', '  ', 'I said {"type":"x"}', '[1,2]', '{not json', '{"a":1}', '{"type":5}', 'null', '{"type":"permission_request",'])(
    'plain text %j comes back as text',
    (text) => {
      expect(parseControl(text)).toEqual({ kind: 'text', text });
    },
  );

  it('an unknown type is kept as unknown with its value', () => {
    const text = JSON.stringify({ type: 'team_status_v2', from: 'w1', progress: 0.5 });
    expect(parseControl(text)).toEqual({ kind: 'unknown', type: 'team_status_v2', value: { type: 'team_status_v2', from: 'w1', progress: 0.5 } });
  });

  it.each([
    { type: 'permission_request' },
    { type: 'permission_request', request_id: 1, agent_id: 'w1', tool_name: 'Bash' },
    { type: 'permission_response', request_id: 'r', subtype: 'maybe' },
    { type: 'shutdown_request', requestId: 'x' },
    { type: 'plan_approval_response', requestId: 'x', approved: 'yes', timestamp: ts },
    { type: 'idle_notification', from: 'w1', timestamp: ts, idleReason: 'sleepy' },
    { type: 'mode_set_request', mode: 7, from: 'team-lead' },
    { type: 'task_assignment', taskId: 3, subject: 'x', assignedBy: 'team-lead', timestamp: ts },
  ])('malformed known type %j → unknown with a problem, no throw', (value) => {
    const r = parseControl(JSON.stringify(value));
    expect(r.kind).toBe('unknown');
    if (r.kind === 'unknown') {
      expect(r.type).toBe(value.type);
      expect(r.problem).toBeTruthy();
    }
  });

  it('never throws on arbitrary input', () => {
    const inputs = ['{', '{}', '{"type":null}', '{"type":"__proto__"}', '{"__proto__":{"type":"shutdown_request"}}', '\u0000{', '{"type":"x"'];
    for (const i of inputs) expect(() => parseControl(i)).not.toThrow();
  });
});

describe('encodeControl', () => {
  it.each(SAMPLES.map((s) => [s.sample.type, s.sample] as const))('%s keeps its type and round-trips', (type, sample) => {
    const message = ControlMessageSchema.parse(sample) as ControlMessage;
    const text = encodeControl(message);
    const raw = JSON.parse(text) as Record<string, unknown>;
    expect(raw.type).toBe(type);
    const back = parseControl(text);
    expect(back.kind).toBe('control');
    if (back.kind === 'control') expect(back.message).toEqual(message);
  });
});
