// The board's HTTP server (docs/board.md): node:http, no framework. Routes:
//   GET  /                                   the page (no team: the list of teams)
//   GET  /team/<team>                        the page of one team
//   GET  /app.js, /app.css                   its script and style (page.ts); /favicon.ico: none (204)
//   GET  /api/teams                          the teams it serves
//   GET  /api/team/<team>/snapshot           the team now (snapshot.ts), JSON
//   GET  /api/team/<team>/events             the same, live: server-sent events (feed.ts)
//   POST /api/team/<team>/permissions/<id>   {"answer":"allow"|"always"|"deny","feedback"?}: permissions/leader decide()
//   POST /api/team/<team>/plans/<member>     {"approve":true|false,"feedback"?}: permissions/plan-answer answerPlan()
// The answers run exactly what `swarm approve|deny` and `swarm plan` run: signed, audited, once
// (a request answered elsewhere first is a 409 saying so).
//
// Trust (docs/board.md#trust), checked in this order on every request: the Host header must be one
// of the board's own (a DNS-rebinding page names another), then the token — from `?token=` on the
// first visit (answered with an HttpOnly SameSite=Strict cookie and a redirect that drops it from
// the address bar), the cookie, or `Authorization: Bearer` — compared in constant time; then a
// state change must be a POST with the board's own Origin and a JSON body. No CORS header is ever
// sent; every answer carries a strict Content-Security-Policy. Nothing is logged but errors, and
// never a URL with its query (the token's only place).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { decide } from '../../permissions/leader.js';
import { answerPlan } from '../../permissions/plan-answer.js';
import { isSwarmError, SwarmError, type ErrorKind } from '../../protocol/errors.js';
import { readTeam } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { allowedHosts, checkBindHost, cookieName, cookieValue, newToken, originAllowed, tokenCookie, tokenMatches } from './access.js';
import { TeamFeed } from './feed.js';
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from './page.js';
import { boardSnapshot, teamsIndex } from './snapshot.js';

export interface BoardOptions {
  root: string;
  /** Serve this team only; unset: every team under the root. */
  team?: string;
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** True when the user gave --host: only then may the address be other than loopback. */
  explicitHost?: boolean;
  /** 0 (default): a free port. */
  port?: number;
  /** Default: a fresh random one. */
  token?: string;
  env: NodeJS.ProcessEnv;
  /** Where errors go (one line each; never a token). */
  log: (line: string) => void;
  /** Re-read a watched team this often without a file change (liveness), ms. */
  refreshMs?: number;
}

export interface Board {
  /** The address to open, token included. */
  url: string;
  port: number;
  host: string;
  token: string;
  close(): Promise<void>;
}

/** The page's policy: its own script and style only, no inline anything, no framing, fetches to itself. */
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const MAX_BODY = 64 * 1024;
const REFRESH_MS = 5000;

const STATUS_OF: Partial<Record<ErrorKind, number>> = { invalid_input: 400, invalid_name: 400, not_found: 404, already_resolved: 409 };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, `expected a URL-encoded path, got ${JSON.stringify(part)}`);
  }
}

function securityHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', 'no-store');
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value));
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) throw new HttpError(415, 'expected Content-Type: application/json');
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(413, `expected a body under ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'expected a JSON body');
  }
}

function feedbackOf(body: Record<string, unknown>): string | undefined {
  const f = body.feedback;
  if (f === undefined || f === null || f === '') return undefined;
  if (typeof f !== 'string') throw new HttpError(400, `expected feedback to be a string, got ${typeof f}`);
  return f;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'expected a JSON object');
  return body as Record<string, unknown>;
}

/** Start the board; resolves once it listens. */
export async function startBoard(o: BoardOptions): Promise<Board> {
  const host = o.host ?? '127.0.0.1';
  checkBindHost(host, o.explicitHost === true);
  if (o.team !== undefined) new Team(o.root, o.team); // invalid_name before anything listens
  const token = o.token ?? newToken();
  const feeds = new Map<string, TeamFeed>();
  const streams = new Set<ServerResponse>();
  let hosts = new Set<string>();
  let port = 0;

  const teamOf = (name: string): Team => {
    if (o.team !== undefined && name !== o.team) throw new HttpError(404, `this board shows team ${o.team} only`);
    return new Team(o.root, name);
  };
  const snapshotOf = (team: Team) => () => boardSnapshot(team, { env: o.env });
  const feedOf = (team: Team): TeamFeed => {
    let feed = feeds.get(team.name);
    if (!feed) feeds.set(team.name, (feed = new TeamFeed(team, snapshotOf(team), o.refreshMs ?? REFRESH_MS, o.log)));
    return feed;
  };

  const authorised = (req: IncomingMessage, url: URL): boolean => {
    const auth = req.headers.authorization;
    const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
    return [url.searchParams.get('token') ?? undefined, cookieValue(req.headers.cookie, cookieName(port)), bearer].some((t) => tokenMatches(t, token));
  };

  const events = (req: IncomingMessage, res: ServerResponse, team: Team): void => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write(': swarm board\n\n');
    streams.add(res);
    const off = feedOf(team).listen((e) => {
      if (e.kind === 'snapshot') res.write(`event: snapshot\ndata: ${e.json}\n\n`);
      else res.write(`event: problem\ndata: ${JSON.stringify(e.message)}\n\n`);
    });
    req.on('close', () => {
      off();
      streams.delete(res);
    });
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, team: Team, what: 'permissions' | 'plans', id: string): Promise<void> => {
    const body = objectBody(await readBody(req));
    const feedback = feedbackOf(body);
    if (what === 'permissions') {
      const a = body.answer;
      if (a !== 'allow' && a !== 'always' && a !== 'deny') throw new HttpError(400, `expected answer "allow", "always" or "deny", got ${JSON.stringify(a)}`);
      const r = await decide(team, id, a === 'deny' ? 'deny' : 'allow', { ...(a === 'always' ? { always: true } : {}), ...(feedback ? { feedback } : {}) });
      return sendJson(res, 200, { id: r.id, status: r.status, worker: r.request.workerName, ...(r.rule ? { rule: r.rule } : {}) });
    }
    if (typeof body.approve !== 'boolean') throw new HttpError(400, `expected approve true or false, got ${JSON.stringify(body.approve)}`);
    const r = await answerPlan(team, id, { approve: body.approve, ...(feedback ? { feedback } : {}) });
    return sendJson(res, 200, { requestId: r.requestId, to: r.to, approved: r.approved });
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    securityHeaders(res);
    if (!hosts.has((req.headers.host ?? '').toLowerCase())) throw new HttpError(421, 'this board answers only to its own address');
    const url = new URL(req.url ?? '/', 'http://board.invalid');
    if (!authorised(req, url)) throw new HttpError(401, 'open the URL swarm board printed: it carries the access token');
    const method = req.method ?? 'GET';
    const parts = url.pathname.split('/').slice(1).map(decodePart);
    const post = parts[0] === 'api' && parts[1] === 'team' && (parts[3] === 'permissions' || parts[3] === 'plans') && parts.length === 5;
    if (post) {
      if (method !== 'POST') {
        res.setHeader('Allow', 'POST');
        throw new HttpError(405, 'an answer is a POST');
      }
      if (!originAllowed(req.headers.origin, hosts)) throw new HttpError(403, "a POST must come from the board's own page (Origin)");
      return answer(req, res, teamOf(parts[2]!), parts[3] as 'permissions' | 'plans', parts[4]!);
    }
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET');
      throw new HttpError(405, 'only answers are POSTs; this is read with GET');
    }
    if (url.searchParams.has('token')) {
      // First visit: the token moves to the cookie and out of the address bar (and its history).
      res.writeHead(303, { 'Set-Cookie': tokenCookie(port, token), Location: url.pathname });
      return void res.end();
    }
    if (url.pathname === '/') {
      if (o.team !== undefined) {
        res.writeHead(303, { Location: `/team/${encodeURIComponent(o.team)}` });
        return void res.end();
      }
      return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
    }
    if (parts[0] === 'team' && parts.length === 2) {
      await readTeam(teamOf(parts[1]!)); // not_found: 404
      return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML);
    }
    if (url.pathname === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_JS);
    if (url.pathname === '/app.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_CSS);
    if (url.pathname === '/favicon.ico') return send(res, 204, 'image/x-icon', ''); // asked by every browser: none
    if (url.pathname === '/api/teams') {
      const all = await teamsIndex(o.root);
      return sendJson(res, 200, o.team === undefined ? all : all.filter((t) => t.name === o.team));
    }
    if (parts[0] === 'api' && parts[1] === 'team' && parts.length === 4) {
      const team = teamOf(parts[2]!);
      if (parts[3] === 'snapshot') return sendJson(res, 200, await snapshotOf(team)());
      if (parts[3] === 'events') {
        await readTeam(team); // not_found before the feed's watchers open: they would create the directories of a team that is not there
        return events(req, res, team);
      }
    }
    throw new HttpError(404, 'no such page');
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      const status = e instanceof HttpError ? e.status : isSwarmError(e) ? (STATUS_OF[e.kind] ?? 500) : 500;
      const message = e instanceof Error ? e.message : String(e);
      if (status === 500) o.log(`board: ${req.method ?? 'GET'} ${(req.url ?? '/').split('?')[0]}: ${message}`);
      if (res.headersSent) return void res.end();
      sendJson(res, status, { error: message, ...(isSwarmError(e) ? { kind: e.kind } : {}) });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new SwarmError('invalid_input', `port ${o.port} is taken; pick another --port or leave it out for a free one`) : e),
    );
    server.listen(o.port ?? 0, host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, port, { hostname: hostname(), addresses: Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)) });
  const shown = host.includes(':') ? `[${host}]` : host;
  const start = o.team === undefined ? '/' : `/team/${encodeURIComponent(o.team)}`;
  return {
    url: `http://${shown}:${port}${start}?token=${token}`,
    port,
    host,
    token,
    close: async () => {
      for (const s of streams) s.end();
      await Promise.all([...feeds.values()].map((f) => f.halt()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
