// A local stand-in for the Anthropic Messages API: a real HTTP server on 127.0.0.1 that answers
// `POST /v1/messages` (JSON or SSE streaming, as the real API does) from a scripted scenario, so the
// teammate runtime, the tests and `swarm demo` run the whole system without an API key. Point
// `ANTHROPIC_BASE_URL` (or the SDK's `baseURL`) at `url`; any credential is accepted and recorded
// as present/absent only. Clients name themselves with the `x-swarm-agent` header, so several
// teammate processes can share one server, each with its own cursor through the script.
//
// Where things are: the script format in script.ts, how a request picks its turn in select.ts,
// request handling in handler.ts, the wire format in wire.ts / respond.ts, the log in recorder.ts.
//
// CLI: `node dist/standin/messages-server.js --script <file.json> [--port N] [--host H] [--log]`
// prints one line `{"url":"http://127.0.0.1:<port>"}` on stdout once listening, writes one JSON
// line per request on stderr with --log, exits 0 on SIGTERM / SIGINT and 2 on a usage or script
// error (the message on stderr).

import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SwarmError } from '../protocol/errors.js';
import { INTERRUPT_SIGNALS, onSignals } from '../protocol/signals.js';
import { createHandler } from './handler.js';
import { createRecorder } from './recorder.js';
import type { RecordedRequest } from './request.js';
import { parseScript, type Script, type ScriptInput } from './script.js';
import { sendJson } from './respond.js';
import { errorBody, type IdSource } from './wire.js';

export { AGENT_HEADER } from './request.js';
export type { IncomingRequest, RecordedRequest, RequestOutcome } from './request.js';
export type { ScriptInput, StepInput } from './script.js';

export interface MessagesServerOptions {
  script: ScriptInput;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Overrides the script's `exhaustedReply`. */
  exhaustedReply?: string;
  /** Ids of messages, tool uses and requests; default `<prefix><24 random hex>`. */
  newId?: IdSource;
  now?: () => number;
  /** Called with each request once it has been answered (or refused). */
  onRequest?: (request: RecordedRequest) => void;
}

export interface MessagesServer {
  /** Base URL for the SDK's `baseURL` / ANTHROPIC_BASE_URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Every request, in the order they were answered (live array). */
  requests: RecordedRequest[];
  /** Resolves with `requests` once at least `count` were answered; rejects after `timeoutMs` (default 5000). */
  waitForRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Stops listening, drops open connections, rejects pending waits. */
  close(): Promise<void>;
}

export const DEFAULT_EXHAUSTED_REPLY = '(script finished)';

const randomId: IdSource = (prefix) => `${prefix}${randomBytes(12).toString('hex')}`;

/** Starts the stand-in; rejects with SwarmError('invalid_input') when the script is invalid. */
export async function startMessagesServer(options: MessagesServerOptions): Promise<MessagesServer> {
  const { script, ...rest } = options;
  return serveScript(parseScript(script, 'script'), rest);
}

async function serveScript(script: Script, options: Omit<MessagesServerOptions, 'script'>): Promise<MessagesServer> {
  const recorder = createRecorder();
  const handle = createHandler(script, {
    exhaustedReply: options.exhaustedReply ?? script.exhaustedReply ?? DEFAULT_EXHAUSTED_REPLY,
    newId: options.newId ?? randomId,
    now: options.now ?? Date.now,
    record: (request) => {
      recorder.record(request);
      options.onRequest?.(request);
    },
  });
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, errorBody(500, `stand-in failure: ${String(e)}`), { 'x-should-retry': 'false' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    port,
    requests: recorder.requests,
    waitForRequests: (count, timeoutMs = 5000) => recorder.waitFor(count, timeoutMs),
    close: () =>
      new Promise<void>((resolve, reject) => {
        recorder.cancelAll('the stand-in server was closed');
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

// ---- CLI entry -------------------------------------------------------------------------------

const USAGE = 'usage: messages-server --script <file.json> [--port N] [--host H] [--log]';

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

async function loadScriptFile(file: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new SwarmError('not_found', `cannot read script file ${file}: ${messageOf(e)}`, { cause: e });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new SwarmError('invalid_input', `script file ${file} is not JSON: ${messageOf(e)}`, { cause: e });
  }
  return parseScript(json, `script file ${file}`);
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SwarmError('invalid_input', `--port: expected an integer 0-65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function logLine(r: RecordedRequest): string {
  return `${JSON.stringify({ agent: r.agent, outcome: r.outcome, status: r.status, turn: r.turn, error: r.error })}\n`;
}

/** Runs the CLI with `argv` (without node and script path); resolves once the url line is printed. */
export async function runMessagesServerCli(argv: string[]): Promise<MessagesServer> {
  let values: { script?: string; port?: string; host?: string; log?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        script: { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        log: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (e) {
    throw new SwarmError('invalid_input', `${messageOf(e)}\n${USAGE}`, { cause: e });
  }
  if (values.script === undefined) throw new SwarmError('invalid_input', USAGE);
  const script = await loadScriptFile(values.script);
  const log = values.log === true;
  const server = await serveScript(script, {
    port: parsePort(values.port),
    host: values.host ?? '127.0.0.1',
    onRequest: (r) => {
      if (log) process.stderr.write(logLine(r));
    },
  });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  return server;
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

function exitOnSignals(server: MessagesServer): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`messages-server: close failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  onSignals(INTERRUPT_SIGNALS, stop);
}

if (isMainModule()) {
  runMessagesServerCli(process.argv.slice(2)).then(exitOnSignals, (e: unknown) => {
    process.stderr.write(`messages-server: ${messageOf(e)}\n`);
    process.exit(2);
  });
}
