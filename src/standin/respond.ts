// Writing stand-in answers onto an HTTP response: JSON bodies, the Anthropic error shape with its
// retry headers, and a scripted reply as one JSON message or as a stream of server-sent events,
// optionally cut off after some events by destroying the socket (a network error for the client).

import type { ServerResponse } from 'node:http';
import type { MessagesRequest } from './request.js';
import type { ErrorStatus, Reply } from './script.js';
import { buildMessage, encodeSse, errorBody, streamEvents, type IdSource } from './wire.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** An error in the API's shape; `x-should-retry` tells the SDK what the real API would. */
export function sendError(res: ServerResponse, status: ErrorStatus, message: string, retryAfter?: number): void {
  const headers: Record<string, string> = { 'x-should-retry': status >= 500 || status === 429 ? 'true' : 'false' };
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  sendJson(res, status, errorBody(status, message), headers);
}

function writeChunk(res: ServerResponse, text: string): Promise<void> {
  return new Promise((resolve, reject) => res.write(text, (e) => (e ? reject(e) : resolve())));
}

export interface ReplyOptions {
  newId: IdSource;
  /** Destroy the socket after this many SSE events (a non-streaming request gets no answer at all). */
  dropAfterEvents?: number;
}

/** Sends `reply` as the request asked: SSE when `stream: true`, else one JSON message. */
export async function sendReply(
  res: ServerResponse,
  body: MessagesRequest,
  reply: Reply,
  options: ReplyOptions,
): Promise<void> {
  const message = buildMessage(body, reply, options.newId);
  if (body.stream !== true) {
    if (options.dropAfterEvents !== undefined) res.socket?.destroy();
    else sendJson(res, 200, message);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const [i, event] of streamEvents(message).entries()) {
    if (i === options.dropAfterEvents) {
      res.socket?.destroy();
      return;
    }
    await writeChunk(res, encodeSse(event));
  }
  res.end();
}
