// The scenario format of the stand-in Messages API: a script is an ordered list of turns, each a
// `match` rule plus one step — a scripted reply, an injected HTTP error, a dropped connection, or
// (programmatic scripts only) a function of the request. JSON scripts and in-process scripts go
// through the same zod schema, so both are validated and normalised the same way.
//
// Example (JSON):
//   { "exhaustedReply": "Done.",
//     "turns": [
//       { "match": { "agent": "alice" }, "error": { "status": 429, "retryAfter": 0.05 } },
//       { "match": { "agent": "alice" },
//         "reply": { "content": [
//           { "type": "text", "text": "Writing it." },
//           { "type": "tool_use", "name": "Write", "input": { "file_path": "a.txt", "content": "hi" } } ] } },
//       { "match": { "agent": "alice", "toolResult": "Write" }, "reply": "All done." } ] },
//     "shutdown": "approve" }
//
// `"shutdown": "approve"` answers a shutdown_request in an agent's last user message with an
// approving SendMessage shutdown_response carrying that request's id (which a JSON turn cannot
// know in advance), before any turn is chosen and without using one up. Without it, a
// shutdown_request is just another request for the turns.
//
// How turns are chosen is documented in select.ts.

import * as z from 'zod';
import { SwarmError } from '../protocol/errors.js';
import type { IncomingRequest } from './request.js';

/** Conditions a request must meet; all given ones must hold, an empty match accepts anything. */
export const Match = z.strictObject({
  /** Exact value of the request's `x-swarm-agent` header. */
  agent: z.string().min(1).optional(),
  /** Substring of the system prompt. */
  system: z.string().min(1).optional(),
  /** Substring of the last user message's text (text blocks and tool_result contents). */
  lastUser: z.string().min(1).optional(),
  /** The last user message carries a tool_result for a tool_use of this tool name. */
  toolResult: z.string().min(1).optional(),
});
export type Match = z.infer<typeof Match>;

export const ContentBlock = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text'), text: z.string() }),
    z.strictObject({
      type: z.literal('tool_use'),
      name: z.string().min(1),
      input: z.record(z.string(), z.unknown()),
      id: z.string().regex(/^toolu_/, 'expected an id starting with "toolu_"').optional(),
    }),
  ],
  { error: 'expected a block {type: "text", text} or {type: "tool_use", name, input, id?}' },
);
export type ContentBlock = z.infer<typeof ContentBlock>;

const StopReason = z.enum(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence']);

const REPLY_SHAPE = 'expected a string or {content: [blocks], stopReason?, usage?}';
const ReplyObject = z.strictObject(
  {
    content: z.array(ContentBlock).min(1),
    /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
    stopReason: StopReason.optional(),
    /** Default: estimated from the request and reply sizes. */
    usage: z.strictObject({ input_tokens: z.int().nonnegative(), output_tokens: z.int().nonnegative() }).optional(),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? REPLY_SHAPE : undefined) },
);

/** A scripted assistant message; a plain string is shorthand for one text block. */
export const Reply = z.preprocess(
  (v: string | z.input<typeof ReplyObject>) => (typeof v === 'string' ? { content: [{ type: 'text', text: v }] } : v),
  ReplyObject,
);
export type Reply = z.infer<typeof Reply>;

export const ERROR_TYPES = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
} as const;
export type ErrorStatus = keyof typeof ERROR_TYPES;

/** An injected API error, answered `times` times to the agent before its next turn. */
export const ErrorStep = z.strictObject({
  status: z.literal([429, 529, 500, 400, 401, 403], { error: 'expected one of 429, 529, 500, 400, 401, 403' }),
  /** Seconds, sent as the `retry-after` header (fractions allowed, the SDK honours them). */
  retryAfter: z.number().nonnegative().optional(),
  times: z.int().positive().default(1),
  message: z.string().optional(),
});
export type ErrorStep = z.infer<typeof ErrorStep>;

/** Drop the connection: after `afterEvents` SSE events of the next reply when streaming, else before any response. */
export const DisconnectStep = z.strictObject({
  afterEvents: z.int().nonnegative().default(2),
  times: z.int().positive().default(1),
});
export type DisconnectStep = z.infer<typeof DisconnectStep>;

/** What a `respond` function may return: one step, in the same forms as a JSON turn. */
export const Step = z.union(
  [
    z.strictObject({ reply: Reply }),
    z.strictObject({ error: ErrorStep }),
    z.strictObject({ disconnect: DisconnectStep }),
  ],
  { error: 'expected {reply: ...}, {error: {status, ...}} or {disconnect: {...}}' },
);
export type Step = z.infer<typeof Step>;
export type StepInput = z.input<typeof Step>;

export type RespondFn = (request: IncomingRequest) => StepInput | Promise<StepInput>;
export type MatchPredicate = (request: IncomingRequest) => boolean;

const isFunction = (v: unknown): boolean => typeof v === 'function';
const STEP_KEYS = ['reply', 'error', 'disconnect', 'respond'] as const;

/** The normalised action of a turn. */
export type Action =
  | { kind: 'reply'; reply: Reply }
  | { kind: 'error'; error: ErrorStep }
  | { kind: 'disconnect'; disconnect: DisconnectStep }
  | { kind: 'respond'; respond: RespondFn };

function toAction(t: {
  reply?: Reply | undefined;
  error?: ErrorStep | undefined;
  disconnect?: DisconnectStep | undefined;
  respond?: RespondFn | undefined;
}): Action {
  if (t.reply !== undefined) return { kind: 'reply', reply: t.reply };
  if (t.error !== undefined) return { kind: 'error', error: t.error };
  if (t.disconnect !== undefined) return { kind: 'disconnect', disconnect: t.disconnect };
  if (t.respond !== undefined) return { kind: 'respond', respond: t.respond };
  throw new Error('unreachable: turn without a step passed validation');
}

export const Turn = z
  .strictObject({
    match: z
      .union([Match, z.custom<MatchPredicate>(isFunction)], {
        error: 'expected {agent?, system?, lastUser?, toolResult?} or a predicate function',
      })
      .optional(),
    reply: Reply.optional(),
    error: ErrorStep.optional(),
    disconnect: DisconnectStep.optional(),
    respond: z.custom<RespondFn>(isFunction, 'expected a function').optional(),
  })
  .superRefine((t, ctx) => {
    const present = STEP_KEYS.filter((k) => t[k] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `expected exactly one of ${STEP_KEYS.join(', ')}; got ${present.join(' and ') || 'none'}`,
      });
    }
  })
  .transform((t) => ({ match: t.match ?? {}, action: toAction(t) }));
export type Turn = z.infer<typeof Turn>;

export const Script = z.strictObject({
  /** Text answered (end_turn) once an agent has used up every turn meant for it. */
  exhaustedReply: z.string().optional(),
  turns: z.array(Turn),
  shutdown: z.literal('approve', { error: 'expected "approve" (or leave shutdown out)' }).optional(),
});
export type Script = z.infer<typeof Script>;
export type ScriptInput = z.input<typeof Script>;

/** Validate a script (parsed JSON or an in-process object); `source` names it in the error. */
export function parseScript(value: unknown, source = 'script'): Script {
  const result = Script.safeParse(value);
  if (result.success) return result.data;
  throw new SwarmError('invalid_input', `${source} is not a valid stand-in script:\n${z.prettifyError(result.error)}`, {
    cause: result.error,
  });
}

/** Validate what a `respond` function returned. */
export function parseStep(value: unknown, turnIndex: number): Step {
  const result = Step.safeParse(value);
  if (result.success) return result.data;
  const details = z.prettifyError(result.error);
  throw new SwarmError('invalid_input', `turns[${turnIndex}].respond returned an invalid step:\n${details}`, {
    cause: result.error,
  });
}

/** The reply that approves shutdown request `requestId` (what a model does to agree to stop). */
export function shutdownApproval(requestId: string): Reply {
  return {
    content: [
      { type: 'text', text: 'Shutting down as asked.' },
      {
        type: 'tool_use',
        name: 'SendMessage',
        input: { to: 'team-lead', message: { type: 'shutdown_response', request_id: requestId, approve: true } },
      },
    ],
  };
}
