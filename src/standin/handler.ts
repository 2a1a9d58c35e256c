// One HTTP request to the stand-in, start to finish: read and parse it, pick the script turn
// (select.ts), run the turn's step (reply, injected error, dropped connection, respond function),
// and record what happened. Only `POST /v1/messages` is served; anything else gets a 404 in the
// API's error shape.

import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod';
import { AGENT_HEADER, MessagesRequest, type IncomingRequest, type RecordedRequest } from './request.js';
import { parseStep, shutdownApproval, type Action, type Script, type Step } from './script.js';
import { createTurnSelector, type Selection } from './select.js';
import { sendError, sendJson, sendReply } from './respond.js';
import { errorBody, type IdSource } from './wire.js';

export interface HandlerOptions {
  exhaustedReply: string;
  newId: IdSource;
  now: () => number;
  record: (request: RecordedRequest) => void;
}

type Outcome = Pick<RecordedRequest, 'outcome' | 'status' | 'turn' | 'error'> & { body?: MessagesRequest };
type RequestBase = Omit<IncomingRequest, 'body'>;

const CREDENTIAL_HEADERS = new Set(['x-api-key', 'authorization']);
// The text of a streamed reply that a disconnect step cuts off; the client never sees it whole.
const CUT_REPLY = { content: [{ type: 'text' as const, text: 'This reply is cut off by the stand-in.' }] };

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = CREDENTIAL_HEADERS.has(name) ? '<redacted>' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function requestBase(req: IncomingMessage, now: () => number): RequestBase {
  const headers = headerRecord(req);
  return {
    method: req.method ?? 'GET',
    path: new URL(req.url ?? '/', 'http://stand-in').pathname,
    agent: headers[AGENT_HEADER]?.trim() ?? '',
    headers,
    hasApiKey: 'x-api-key' in headers,
    hasAuthorization: 'authorization' in headers,
    receivedAt: now(),
  };
}

function stepOf(action: Exclude<Action, { kind: 'respond' }>): Step {
  if (action.kind === 'reply') return { reply: action.reply };
  if (action.kind === 'error') return { error: action.error };
  return { disconnect: action.disconnect };
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createHandler(script: Script, options: HandlerOptions): RequestHandler {
  const select = createTurnSelector(script);
  const { newId } = options;

  async function runStep(res: ServerResponse, req: IncomingRequest, step: Step, turn: number): Promise<Outcome> {
    if ('error' in step) {
      const { status, retryAfter } = step.error;
      const message = step.error.message ?? `injected ${status} from the stand-in script (turns[${turn}])`;
      sendError(res, status, message, retryAfter);
      return { outcome: 'error', status, turn, error: message };
    }
    if ('disconnect' in step) {
      await sendReply(res, req.body, CUT_REPLY, { newId, dropAfterEvents: step.disconnect.afterEvents });
      return { outcome: 'disconnect', status: 0, turn };
    }
    await sendReply(res, req.body, step.reply, { newId });
    return { outcome: 'reply', status: 200, turn };
  }

  async function answer(res: ServerResponse, req: IncomingRequest, selection: Selection): Promise<Outcome> {
    if (selection.kind === 'unmatched') {
      const message = `stand-in script: unmatched request: ${selection.reason}`;
      sendError(res, 400, message);
      return { outcome: 'unmatched', status: 400, error: message };
    }
    if (selection.kind === 'exhausted') {
      await sendReply(res, req.body, { content: [{ type: 'text', text: options.exhaustedReply }] }, { newId });
      return { outcome: 'exhausted', status: 200 };
    }
    if (selection.kind === 'shutdown') {
      await sendReply(res, req.body, shutdownApproval(selection.requestId), { newId });
      return { outcome: 'reply', status: 200 };
    }
    const { action, index } = selection;
    const step = action.kind === 'respond' ? parseStep(await action.respond(req), index) : stepOf(action);
    return runStep(res, req, step, index);
  }

  async function messages(res: ServerResponse, base: RequestBase, raw: string): Promise<Outcome> {
    const parsed = MessagesRequest.safeParse(parseJson(raw));
    if (!parsed.success) {
      const message = `invalid Messages request body: ${z.prettifyError(parsed.error).replace(/\n\s*/g, ' ')}`;
      sendError(res, 400, message);
      return { outcome: 'invalid', status: 400, error: message };
    }
    const req: IncomingRequest = { ...base, body: parsed.data };
    try {
      return { ...(await answer(res, req, select(req))), body: parsed.data };
    } catch (e) {
      // A respond function that threw or returned a bad step: a script bug, not worth a retry.
      const message = `stand-in script failed: ${e instanceof Error ? e.message : String(e)}`;
      if (res.headersSent) res.socket?.destroy();
      else sendJson(res, 500, errorBody(500, message), { 'x-should-retry': 'false' });
      return { outcome: 'invalid', status: 500, error: message, body: parsed.data };
    }
  }

  return async (req, res) => {
    const raw = await readBody(req);
    const base = requestBase(req, options.now);
    res.setHeader('request-id', newId('req_'));
    let outcome: Outcome;
    if (base.method === 'POST' && base.path === '/v1/messages') {
      outcome = await messages(res, base, raw);
    } else {
      const message = `the stand-in serves only POST /v1/messages, not ${base.method} ${base.path}`;
      sendJson(res, 404, errorBody(404, message), { 'x-should-retry': 'false' });
      outcome = { outcome: 'invalid', status: 404, error: message };
    }
    const { body, ...rest } = outcome;
    options.record({ ...base, body, ...rest });
  };
}
