// SendMessage {to, message, summary?} (docs/protocol.md#teammate-runtime): `to` is a member name, `team-lead` or `*`;
// `message` is plain text, or {type: "shutdown_response", request_id, approve, reason?} (answers a
// signed shutdown request; a rejection needs a reason), or {type: "plan_approval_response", ...}
// (leader only: refused here). A structured answer written as a JSON string is read as structured;
// any other control-message JSON as text is refused, so a model cannot forge protocol frames.
import * as z from 'zod';
import { parseControl } from '../../protocol/control.js';
import { SwarmError } from '../../protocol/errors.js';
import { defineTool, describeIssues } from './types.js';

const ShutdownResponse = z.object({
  type: z.literal('shutdown_response'),
  request_id: z.string().min(1).describe('The requestId of the shutdown_request'),
  approve: z.boolean(),
  reason: z.string().optional().describe('Required when approve is false'),
});
const PlanResponse = z.object({
  type: z.literal('plan_approval_response'),
  request_id: z.string().min(1),
  approve: z.boolean(),
  feedback: z.string().optional(),
});
const Structured = z.union([ShutdownResponse, PlanResponse]);

const SendInput = z.object({
  to: z.string().min(1).describe('A teammate name, "team-lead", or "*" for everyone'),
  message: z
    .union([z.string().min(1), ShutdownResponse, PlanResponse])
    .describe('Plain text, or {"type":"shutdown_response","request_id":"...","approve":true|false,"reason":"..."}'),
  summary: z.string().optional().describe('A 5-10 word preview shown to the recipient'),
});

type Message = z.infer<typeof SendInput>['message'];

/**
 * A message the model wrote as a JSON string: what `schema` makes of it (the structured message it
 * meant), else the text itself, unless it parses as another protocol frame, which is refused with
 * `refusal` (a model must not forge one). `invalid` sees JSON the schema rejected and may throw a
 * more precise error first. Shared by the teammate's SendMessage and the agent lead's.
 */
export function structuredOrText<T>(message: string, schema: z.ZodType<T>, refusal: string, invalid?: (json: unknown) => void): T | string {
  if (!message.trimStart().startsWith('{')) return message;
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return message;
  }
  const structured = schema.safeParse(json);
  if (structured.success) return structured.data;
  invalid?.(json);
  if (parseControl(message).kind !== 'text') throw new SwarmError('invalid_input', refusal);
  return message;
}

/** A JSON string that is a structured answer becomes one; other control JSON is refused. */
export function normaliseMessage(message: Message): Message {
  if (typeof message !== 'string') return message;
  return structuredOrText(message, Structured, 'message looks like a protocol control frame; send plain text, or a structured shutdown_response', (json) => {
    const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
    if (type === 'shutdown_response' || type === 'plan_approval_response') {
      throw new SwarmError('invalid_input', `invalid ${String(type)}: ${describeIssues('SendMessage', Structured.safeParse(json).error!)}`);
    }
  });
}

export const sendMessageTool = defineTool({
  name: 'SendMessage',
  kind: 'message',
  description:
    'Send a message to a teammate, to "team-lead", or to everyone ("*"). This is the only way anyone sees what you say: ' +
    'your plain text output is visible only in your own pane. To answer a shutdown request send to "team-lead" the message ' +
    '{"type":"shutdown_response","request_id":"<requestId>","approve":true} or approve:false with a "reason".',
  schema: SendInput,
  prepare: async (input, ctx) => {
    const message = normaliseMessage(input.message);
    const self = ctx.messaging.self;
    if (typeof message === 'string') {
      if (input.to.toLowerCase() === self.toLowerCase()) throw new SwarmError('invalid_input', 'that is you; send to a teammate, "team-lead" or "*"');
      return {
        summary: `to ${input.to}: ${message}`,
        execute: async () => {
          const recipients = await ctx.messaging.send(input.to, message, input.summary);
          return { content: `Message sent to ${recipients.join(', ')}` };
        },
      };
    }
    if (message.type === 'plan_approval_response') {
      throw new SwarmError('invalid_input', 'only the team lead answers plan approvals; you cannot send plan_approval_response');
    }
    if (!message.approve && !message.reason?.trim()) {
      throw new SwarmError('invalid_input', 'rejecting a shutdown needs a reason: add "reason" saying why you must keep going');
    }
    return {
      summary: `shutdown_response ${message.approve ? 'approve' : 'reject'} ${message.request_id}`,
      execute: async () => ({ content: await ctx.messaging.answerShutdown(message.request_id, message.approve, message.reason) }),
    };
  },
});
