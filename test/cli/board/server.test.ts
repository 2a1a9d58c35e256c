// The board's HTTP and trust rules (docs/board.md#trust), in process: a real server on a free
// loopback port over a real team (perm-harness: team t, w1 and w2, the lead key), answered through
// node:http requests that set exactly the headers a test names (Host and Origin included).
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide } from '../../../src/permissions/leader.js';
import { readPending } from '../../../src/permissions/pending.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { encodeControl } from '../../../src/protocol/control.js';
import { isSwarmError } from '../../../src/protocol/errors.js';
import { createTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { allowedHosts, checkBindHost, isLoopback, tokenMatches } from '../../../src/cli/board/access.js';
import { CSP, startBoard, type Board } from '../../../src/cli/board/server.js';
import { auditFor, responseFrames, setupTeam, TEAM, type Harness } from '../../support/perm-harness.js';
import { writePendingFor } from '../../support/team-fixture.js';
import { inotifyWatches } from '../../support/handles.js';
import { afterThisTest, useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';
import { writeDamaged } from '../../support/damaged-file.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request to the board with exactly these headers (Host defaults to the board's own). */
function call(b: Board, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: b.port, method, path, headers: { Host: `127.0.0.1:${b.port}`, ...headers } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('swarm board server', () => {
  let h: Harness;
  let log: string[];
  useTempRoot(async (root) => {
    h = await setupTeam(root);
    log = [];
  });

  async function board(opts: { team?: string } = { team: TEAM }): Promise<Board> {
    const b = await startBoard({ root: h.root, ...opts, env: {}, log: (l) => log.push(l), refreshMs: 60_000 });
    afterThisTest(() => b.close());
    return b;
  }
  const auth = (b: Board): Record<string, string> => ({ Authorization: `Bearer ${b.token}` });
  const own = (b: Board): Record<string, string> => ({ ...auth(b), Origin: `http://127.0.0.1:${b.port}`, 'Content-Type': 'application/json' });

  it('answers nothing without the token: 401 for the page, its script, the data and the answers', async () => {
    const b = await board();
    const id = await writePendingFor(h.root, TEAM, 'w1');
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/team/t'],
      ['GET', '/app.js'],
      ['GET', '/api/teams'],
      ['GET', '/api/team/t/snapshot'],
      ['GET', '/api/team/t/events'],
      ['POST', `/api/team/t/permissions/${id}`],
    ] as const) {
      const r = await call(b, method, path, { Origin: `http://127.0.0.1:${b.port}`, 'Content-Type': 'application/json' }, method === 'POST' ? '{"answer":"allow"}' : undefined);
      expect(r.status, `${method} ${path}`).toBe(401);
    }
    const wrong = `${b.token.slice(0, -1)}${b.token.endsWith('A') ? 'B' : 'A'}`;
    expect((await call(b, 'GET', '/api/team/t/snapshot', { Authorization: `Bearer ${wrong}` })).status).toBe(401);
    expect((await call(b, 'GET', `/team/t?token=${wrong}`)).status).toBe(401);
    expect((await call(b, 'GET', '/api/team/t/snapshot', { Cookie: `swarm_board_${b.port}=${wrong}` })).status).toBe(401);
    expect(await readPending(h.paths, id), 'nothing was decided').toBeDefined();
  });

  it('moves the token from the URL to an HttpOnly SameSite=Strict cookie, and serves the page under a strict CSP without CORS', async () => {
    const b = await board();
    expect(b.url).toBe(`http://127.0.0.1:${b.port}/team/t?token=${b.token}`);
    const first = await call(b, 'GET', `/team/t?token=${b.token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/team/t');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toBe(`swarm_board_${b.port}=${b.token}; HttpOnly; SameSite=Strict; Path=/`);
    const page = await call(b, 'GET', '/team/t', { Cookie: cookie.split(';')[0]!, Origin: 'http://evil.example' });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(CSP);
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain('unsafe');
    expect(page.body).not.toContain('<script>');
    expect(page.body).toContain('<script src="/app.js" defer></script>');
    const preflight = await call(b, 'OPTIONS', '/api/team/t/snapshot', { ...auth(b), Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' });
    for (const r of [first, page, preflight, await call(b, 'GET', '/api/team/t/snapshot', { ...auth(b), Origin: 'http://evil.example' })]) {
      expect(Object.keys(r.headers).filter((k) => k.startsWith('access-control-'))).toEqual([]);
      expect(r.headers['content-security-policy']).toBe(CSP);
    }
    expect(preflight.status).toBe(405);
  });

  it("refuses a Host that is not the board's own (a DNS-rebinding page), token or not", async () => {
    const b = await board();
    const r = await call(b, 'GET', '/api/team/t/snapshot', { ...auth(b), Host: `evil.example:${b.port}` });
    expect(r.status).toBe(421);
    expect((await call(b, 'GET', '/api/team/t/snapshot', { ...auth(b), Host: `localhost:${b.port}` })).status).toBe(200);
  });

  it("takes answers only as POSTs with the board's own Origin and a JSON body, then decides through decide() exactly once", async () => {
    const b = await board();
    const id = await writePendingFor(h.root, TEAM, 'w1');
    const path = `/api/team/t/permissions/${id}`;
    expect((await call(b, 'GET', path, auth(b))).status).toBe(405);
    expect((await call(b, 'POST', path, { ...own(b), Origin: '' }, '{"answer":"allow"}')).status).toBe(403);
    const { Origin: _, ...noOrigin } = own(b);
    expect((await call(b, 'POST', path, noOrigin, '{"answer":"allow"}')).status).toBe(403);
    expect((await call(b, 'POST', path, { ...own(b), Origin: 'http://evil.example' }, '{"answer":"allow"}')).status).toBe(403);
    expect((await call(b, 'POST', path, { ...own(b), 'Content-Type': 'text/plain' }, '{"answer":"allow"}')).status).toBe(415);
    expect((await call(b, 'POST', path, own(b), '{"answer":"yes"}')).status).toBe(400);
    expect(await readPending(h.paths, id), 'nothing was decided by the refused requests').toBeDefined();
    expect(await responseFrames(h.paths, 'w1', id)).toEqual([]);

    const ok = await call(b, 'POST', path, own(b), JSON.stringify({ answer: 'deny', feedback: 'not now' }));
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ id, status: 'rejected', worker: 'w1' });
    expect(await responseFrames(h.paths, 'w1', id)).toHaveLength(1);
    expect((await auditFor(h.paths, id)).filter((e) => e.event === 'decision')).toEqual([expect.objectContaining({ status: 'rejected', by: 'team-lead', feedback: 'not now' })]);

    const again = await call(b, 'POST', path, own(b), '{"answer":"allow"}');
    expect(again.status).toBe(409);
    expect(await responseFrames(h.paths, 'w1', id), 'still exactly one answer').toHaveLength(1);
  });

  it('shows a request answered in the console meanwhile as answered (409), sending nothing more', async () => {
    const b = await board();
    const id = await writePendingFor(h.root, TEAM, 'w2');
    const before = JSON.parse((await call(b, 'GET', '/api/team/t/snapshot', auth(b))).body) as { permissions: { id: string }[] };
    expect(before.permissions.map((p) => p.id)).toEqual([id]);
    await decide(new Team(h.root, TEAM), id, 'allow'); // `swarm approve` in a terminal
    const r = await call(b, 'POST', `/api/team/t/permissions/${id}`, own(b), '{"answer":"deny"}');
    expect(r.status).toBe(409);
    expect(JSON.parse(r.body)).toMatchObject({ kind: 'already_resolved' });
    expect(await responseFrames(h.paths, 'w2', id)).toHaveLength(1);
    const after = JSON.parse((await call(b, 'GET', '/api/team/t/snapshot', auth(b))).body) as { permissions: unknown[] };
    expect(after.permissions).toEqual([]);
  });

  it("answers a plan through answerPlan(): the teammate's inbox gets the response and the question leaves the board", async () => {
    const b = await board();
    await new Mailbox({ team: new Team(h.root, TEAM) }).append('team-lead', {
      from: 'w1',
      text: encodeControl({ type: 'plan_approval_request', from: 'w1', timestamp: new Date().toISOString(), planFilePath: '', planContent: '1. read\n2. write', requestId: 'plan-w1-1' }),
    });
    const snap = async (): Promise<{ plans: { from: string; requestId: string }[] }> => JSON.parse((await call(b, 'GET', '/api/team/t/snapshot', auth(b))).body) as never;
    expect((await snap()).plans).toEqual([expect.objectContaining({ from: 'w1', requestId: 'plan-w1-1' })]);
    const r = await call(b, 'POST', '/api/team/t/plans/w1', own(b), '{"approve":true}');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ requestId: 'plan-w1-1', to: 'w1', approved: true });
    expect((await snap()).plans).toEqual([]);
    expect((await call(b, 'POST', '/api/team/t/plans/w1', own(b), '{"approve":false}')).status).toBe(409);
  });

  it('serves only the team it was started for; without one it lists every team', async () => {
    await createTeam(h.root, { name: 'other', cwd: h.root });
    const b = await board();
    expect((await call(b, 'GET', '/api/team/other/snapshot', auth(b))).status).toBe(404);
    expect((await call(b, 'GET', '/team/other', auth(b))).status).toBe(404);
    expect(JSON.parse((await call(b, 'GET', '/api/teams', auth(b))).body)).toEqual([expect.objectContaining({ name: 't' })]);
    const all = await board({});
    expect(all.url).toBe(`http://127.0.0.1:${all.port}/?token=${all.token}`);
    const teams = JSON.parse((await call(all, 'GET', '/api/teams', auth(all))).body) as { name: string; members: number }[];
    expect(teams).toEqual([expect.objectContaining({ name: 'other', members: 0 }), expect.objectContaining({ name: 't', members: 2 })]);
  });

  it('answers 404 for a team that is not there, and makes none of its directories', async () => {
    const b = await board({});
    expect((await call(b, 'GET', '/team/ghost', auth(b))).status).toBe(404);
    expect((await call(b, 'GET', '/api/team/ghost/events', auth(b))).status).toBe(404);
    expect((await call(b, 'GET', '/api/team/ghost/snapshot', auth(b))).status).toBe(404);
    expect(existsSync(path.join(h.root, 'teams', 'ghost'))).toBe(false);
    expect((await call(b, 'GET', '/api/team/..%2Fswarm/snapshot', auth(b))).status).toBe(400);
    expect((await call(b, 'GET', '/api/team/%E0%A4%A/snapshot', auth(b))).status).toBe(400);
    expect(log).toEqual([]);
  });

  it('never writes the token to its log, also when a request fails', async () => {
    const b = await board();
    const id = await writePendingFor(h.root, TEAM, 'w1');
    await writeDamaged(h.paths.config, '{ not json');
    const r = await call(b, 'POST', `/api/team/t/permissions/${id}?token=${b.token}`, { ...own(b), Cookie: `swarm_board_${b.port}=${b.token}` }, '{"answer":"allow"}');
    expect(r.status).toBe(500);
    await call(b, 'GET', `/api/team/t/snapshot?x=1`, auth(b));
    expect(log.length).toBeGreaterThan(0);
    for (const line of log) expect(line).not.toContain(b.token);
  });

  it('binds to loopback only, unless --host was given', async () => {
    await expect(startBoard({ root: h.root, team: TEAM, host: '0.0.0.0', env: {}, log: () => undefined })).rejects.toSatisfy((e) => isSwarmError(e, 'invalid_input') && /ssh -L/.test(e.message));
    expect(() => checkBindHost('192.168.1.4', false)).toThrow(/--host 192\.168\.1\.4/);
    expect(() => checkBindHost('192.168.1.4', true)).not.toThrow();
    expect(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com', '127.example.com'].some(isLoopback)).toBe(false);
    const b = await startBoard({ root: h.root, team: TEAM, host: '::1', env: {}, log: () => undefined }).catch(() => undefined); // no IPv6 on some machines
    if (b) {
      expect(b.url.startsWith(`http://[::1]:${b.port}/`)).toBe(true);
      await b.close();
    }
  });

  it('pushes a new snapshot while a page listens, and watches nothing once it has left', async () => {
    const b = await board();
    const before = inotifyWatches();
    let text = '';
    const req = request({ host: '127.0.0.1', port: b.port, path: '/api/team/t/events', headers: { Host: `127.0.0.1:${b.port}`, ...auth(b) } });
    req.on('response', (res) => res.on('data', (d: Buffer) => (text += d.toString())));
    req.on('error', () => undefined); // destroyed below
    req.end();
    await waitFor(() => text.includes('event: snapshot'), 10_000, 'the first snapshot');
    expect(inotifyWatches()).toBeGreaterThan(before);
    await new Mailbox({ team: new Team(h.root, TEAM) }).append('w1', { from: 'w2', text: 'fresh news' });
    await waitFor(() => text.split('event: snapshot').length > 2 && text.includes('fresh news'), 10_000, 'a second snapshot with the message');
    req.destroy();
    await waitFor(() => inotifyWatches() === before, 10_000, 'the watchers closed');
  });

  it('answers to its own Host names only: loopback, the address it was bound to, and for 0.0.0.0 the machine\'s names', () => {
    const machine = { hostname: 'box', addresses: ['10.1.2.3', 'fe80::1'] };
    expect([...allowedHosts('127.0.0.1', 80, machine)].sort()).toEqual(['127.0.0.1:80', '[::1]:80', 'localhost:80']);
    expect([...allowedHosts('192.168.1.4', 80, machine)]).toEqual(['192.168.1.4:80']);
    expect([...allowedHosts('0.0.0.0', 80, machine)].sort()).toEqual(['0.0.0.0:80', '10.1.2.3:80', '127.0.0.1:80', '[::1]:80', '[fe80::1]:80', 'box:80', 'localhost:80']);
  });

  it('compares tokens whole: a prefix, a longer one, an empty one and a near miss all fail', () => {
    const token = 'abcDEF123_-xyz';
    expect(tokenMatches(token, token)).toBe(true);
    for (const t of [undefined, '', 'abcDEF123_-xy', `${token}z`, 'abcDEF123_-xyZ', token.toUpperCase()]) expect(tokenMatches(t, token), String(t)).toBe(false);
  });
});
