// The Messages API wire format as the stand-in speaks it: the assistant message built from a
// scripted reply, the server-sent events of its streaming form (message_start, content blocks with
// text_delta / input_json_delta chunks, message_delta, message_stop), and the error body shape
// `{type: "error", error: {type, message}}`. Pure functions, no I/O.

import type { MessagesRequest } from './request.js';
import type { ContentBlock, Reply } from './script.js';
import { ERROR_TYPES } from './script.js';

export type IdSource = (prefix: 'msg_' | 'toolu_' | 'req_') => string;

export type OutBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: 0;
  cache_read_input_tokens: 0;
}

export interface OutMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: OutBlock[];
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
  stop_sequence: null;
  usage: Usage;
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4));

function outBlock(block: ContentBlock, newId: IdSource): OutBlock {
  if (block.type === 'text') return { type: 'text', text: block.text };
  return { type: 'tool_use', id: block.id ?? newId('toolu_'), name: block.name, input: block.input };
}

/** The complete assistant message answering `request` with `reply`. */
export function buildMessage(request: MessagesRequest, reply: Reply, newId: IdSource): OutMessage {
  const content = reply.content.map((b) => outBlock(b, newId));
  const stopReason = reply.stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  const promptSize = JSON.stringify([request.system ?? '', request.messages, request.tools ?? []]);
  return {
    id: newId('msg_'),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? estimateTokens(promptSize),
      output_tokens: reply.usage?.output_tokens ?? estimateTokens(JSON.stringify(content)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

/** Text split into deltas of a few words each (whitespace kept, so the pieces join back exactly). */
export function textChunks(text: string, wordsPerChunk = 3): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  if (chunks.length === 0 && text !== '') chunks.push(text);
  return chunks;
}

/** JSON split into `parts` arbitrary pieces, led by an empty one, as the real API streams tool input. */
export function jsonChunks(json: string, parts = 3): string[] {
  if (json === '{}') return [''];
  const size = Math.ceil(json.length / parts);
  const chunks = [''];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks;
}

function blockEvents(block: OutBlock, index: number): SseEvent[] {
  const start =
    block.type === 'text'
      ? { type: 'text', text: '' }
      : { type: 'tool_use', id: block.id, name: block.name, input: {} };
  const deltas =
    block.type === 'text'
      ? textChunks(block.text).map((text) => ({ type: 'text_delta', text }))
      : jsonChunks(JSON.stringify(block.input)).map((partial_json) => ({ type: 'input_json_delta', partial_json }));
  return [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } },
    ...deltas.map((delta) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta } })),
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
}

/** The full event sequence of `message` in streaming form. */
export function streamEvents(message: OutMessage): SseEvent[] {
  const start = { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } };
  return [
    { event: 'message_start', data: { type: 'message_start', message: start } },
    { event: 'ping', data: { type: 'ping' } },
    ...message.content.flatMap(blockEvents),
    {
      event: 'message_delta',
      data: {
        type: 'message_delta',
        delta: { stop_reason: message.stop_reason, stop_sequence: null },
        usage: { output_tokens: message.usage.output_tokens },
      },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
}

export function encodeSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

export interface ErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export function errorBody(status: keyof typeof ERROR_TYPES, message: string): ErrorBody {
  return { type: 'error', error: { type: ERROR_TYPES[status], message } };
}
