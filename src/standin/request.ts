// What the stand-in Messages API knows about one incoming request: the zod schema of a
// `POST /v1/messages` body (only the fields it reads are checked; the rest is kept as sent), the
// request as the server records it, and pure helpers that pull out what script turns match on
// (system prompt text, the last user message, the tools whose results it carries).

import * as z from 'zod';

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string() });
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
});
// Any other block (image, document, thinking...) is accepted and ignored by the matchers.
const OtherBlock = z.looseObject({ type: z.string() });
const RequestBlock = z.union([TextBlock, ToolUseBlock, ToolResultBlock, OtherBlock]);

// `system` messages in the list: the newest Claude Code (2.1.332) sends its environment context as one.
export const RequestMessage = z.looseObject({
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(RequestBlock)]),
});
export type RequestMessage = z.infer<typeof RequestMessage>;

export const MessagesRequest = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(RequestMessage).min(1),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  stream: z.boolean().optional(),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequest>;

/** The request header naming the calling agent; teammates set it so they can share one server. */
export const AGENT_HEADER = 'x-swarm-agent';

/** A parsed request as script functions see it. `agent` is the `x-swarm-agent` header ('' if absent). */
export interface IncomingRequest {
  method: string;
  path: string;
  agent: string;
  /** Lower-cased header names; the values of x-api-key and authorization are replaced by "<redacted>". */
  headers: Record<string, string>;
  hasApiKey: boolean;
  hasAuthorization: boolean;
  body: MessagesRequest;
  receivedAt: number;
}

// What the server did with a request: served a turn, injected an error, dropped the connection,
// answered an exhausted agent, or refused it (unmatched script / invalid body / unknown path).
export type RequestOutcome = 'reply' | 'error' | 'disconnect' | 'exhausted' | 'unmatched' | 'invalid';

export interface RecordedRequest extends Omit<IncomingRequest, 'body'> {
  /** Parsed body; `undefined` when the body was not a valid Messages request. */
  body: MessagesRequest | undefined;
  outcome: RequestOutcome;
  /** HTTP status sent (0 for a dropped connection before any response). */
  status: number;
  /** Index in `script.turns` of the turn served, if any. */
  turn?: number;
  /** The error message sent, for `unmatched` / `invalid` / `error` outcomes. */
  error?: string;
}

/** The system prompt as one string (text blocks joined by newlines), then the text of `system` messages in the list. */
export function systemText(body: MessagesRequest): string {
  const top = body.system === undefined ? '' : typeof body.system === 'string' ? body.system : body.system.map((b) => b.text ?? '').join('\n');
  const inList = body.messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : m.content.map(blockText).join('\n')));
  return [top, ...inList].filter((t) => t !== '').join('\n');
}

function lastUserMessage(body: MessagesRequest): RequestMessage | undefined {
  return body.messages.findLast((m) => m.role === 'user');
}

/** A request block's text: a text block's, or a tool_result's contents ('' for anything else). */
export function blockText(block: z.infer<typeof RequestBlock>): string {
  if (block.type === 'text' && 'text' in block && typeof block.text === 'string') return block.text;
  if (block.type !== 'tool_result' || !('content' in block)) return '';
  const content = block.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n');
}

/** All text of the last user message: plain text, text blocks and tool_result contents. */
export function lastUserText(body: MessagesRequest): string {
  const message = lastUserMessage(body);
  if (message === undefined) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map(blockText).join('\n');
}

/** Names of the tools whose tool_result blocks are in the last user message (looked up by tool_use id). */
export function lastToolResultNames(body: MessagesRequest): string[] {
  const message = lastUserMessage(body);
  if (message === undefined || typeof message.content === 'string') return [];
  const namesById = new Map<string, string>();
  for (const m of body.messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') namesById.set(b.id, b.name);
    }
  }
  return message.content.flatMap((b) =>
    b.type === 'tool_result' && typeof b.tool_use_id === 'string' ? [namesById.get(b.tool_use_id) ?? '?'] : [],
  );
}

/**
 * The `requestId` of a shutdown_request in the last user message (as the runtime shows an inbox
 * message: the JSON text of the control message inside `<teammate-message>`), else undefined.
 */
export function shutdownRequestId(body: MessagesRequest): string | undefined {
  const last = lastUserText(body);
  if (!last.includes('shutdown_request')) return undefined;
  return /"requestId"\s*:\s*"([^"]+)"/.exec(last)?.[1];
}
