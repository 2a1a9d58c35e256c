// Spawn benchmark (issue 4): time until N = 1, 4, 8, 16 teammates are ready (readiness handshake
// done) in tmux, and time to stop them all (shutdownAll, verified: no pane, no process, no member),
// for (a) a trivial teammate command (test/support/fake-teammate.mjs through
// SWARM_TEAMMATE_COMMAND), its swarm modules bundled into one file first as swarm itself runs
// bundled (SWARM_FAKE_LIB, test/support/fake-lib-bundle.ts), and the same fake loading dist/'s
// modules one by one, as the baseline of that, and (b) the swarm runtime (`swarm teammate`) against the stand-in Messages
// API, whose script answers each agent's first turn with a short end_turn text and approves a
// shutdown_request. Each is measured with one `spawnTeammate` after another (what `swarm spawn`
// run N times does) and with `spawnTeammates` (panes created one after another, readiness awaited
// concurrently). Baseline in the same run: raw tmux, N `split-window -- sleep 60` (+ `select-layout
// tiled` in the same call), no handshake.
//
// Everything runs on private tmux servers (`tmux -L swarm-bench-<hex>`, one per measurement),
// killed and their socket files removed afterwards; the default server is never touched. Only
// processes this benchmark started are killed (by pid, or with their private server).
// BENCH_LEVELS=1,4 and BENCH_ONLY=trivial|trivial-modules|runtime|baseline narrow the run.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { isProcessAlive, pollUntil } from '../../src/backends/process.js';
import { selectBackend } from '../../src/backends/registry.js';
import { spawnTeammate, spawnTeammates, type SpawnOptions } from '../../src/teammates/spawn.js';
import { shutdownAll } from '../../src/teammates/stop.js';
import { TmuxServer, listAllPanes, newSession } from '../../src/backends/tmux/commands.js';
import { lastUserText } from '../../src/standin/request.js';
import { startMessagesServer, type IncomingRequest } from '../../src/standin/messages-server.js';
import { createTeam, readTeam } from '../../src/team/team-store.js';
import { table } from './stats.js';
import { Team } from '../../src/team/team.js';
import { bundleFakeLib } from '../../test/support/fake-lib-bundle.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FAKE = path.join(HERE, '../../test/support/fake-teammate.mjs');
const TEAM = 'bench';

type Mode = 'trivial' | 'trivial-modules' | 'runtime';
const MODE_LABEL: Record<Mode, string> = {
  trivial: 'trivial teammate (bench fake, bundled)',
  'trivial-modules': 'baseline: the same fake loading dist/ module by module',
  runtime: 'swarm runtime + stand-in',
};
/** The fake's lib bundled into one file (spawnBench makes it). */
let fakeLibBundle: string | undefined;

type Strategy = 'serial' | 'overlapped';

export function privateSocket(): string {
  return `swarm-bench-${randomBytes(6).toString('hex')}`;
}

/** Kill the private server on `socket` and remove its socket file; never another server. */
export async function reap(socket: string): Promise<void> {
  if (!socket.startsWith('swarm-bench-')) throw new Error(`refusing to kill tmux socket ${socket}`);
  const server = new TmuxServer({ socket });
  const where = await server.tryRun(['display-message', '-p', '#{socket_path}']);
  const uid = process.getuid?.() ?? 0;
  const files = new Set([path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, socket)]);
  if (where.exitCode === 0 && where.stdout.trim() !== '') files.add(where.stdout.trim());
  const killed = await server.tryRun(['kill-server']);
  if (killed.exitCode !== 0 && !/no server running|error connecting/i.test(killed.stderr)) {
    throw new Error(`tmux kill-server on ${socket} failed: ${killed.stderr}`);
  }
  for (const f of files) await rm(f, { force: true });
}

/** The stand-in's script: approve any shutdown_request, answer everything else with a short text. */
export function standinScript() {
  return {
    exhaustedReply: 'Ready.',
    turns: [
      {
        match: { lastUser: 'shutdown-' },
        respond: (req: IncomingRequest) => {
          const id = /shutdown-\d+@[A-Za-z0-9_-]+/.exec(lastUserText(req.body))?.[0] ?? '';
          return {
            reply: {
              content: [
                {
                  type: 'tool_use' as const,
                  name: 'SendMessage',
                  input: { to: 'team-lead', message: { type: 'shutdown_response', request_id: id, approve: true } },
                },
              ],
            },
          };
        },
      },
      { reply: 'Ready.' },
    ],
  };
}

interface Measured {
  ready: number;
  readyMs: number;
  stopMs: number;
  verified: boolean;
  failed: string[];
}

async function measure(mode: Mode, strategy: Strategy, n: number): Promise<Measured> {
  const began = performance.now();
  try {
    return await measureOnce(mode, strategy, n);
  } finally {
    process.stderr.write(`[${mode} ${strategy} N=${n}: ${Math.round(performance.now() - began)} ms with setup and cleanup]\n`);
  }
}

async function measureOnce(mode: Mode, strategy: Strategy, n: number): Promise<Measured> {
  // A fresh stand-in per measurement: the script's turns are per agent name, and names repeat.
  const standin = mode === 'runtime' ? await startMessagesServer({ script: standinScript() }) : undefined;
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-spawn-'));
  const socket = privateSocket();
  const pids = new Set<number>();
  try {
    await createTeam(root, { name: TEAM, cwd: root });
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? root,
      CLAUDE_CONFIG_DIR: root,
      SWARM_TMUX_SOCKET: socket,
      ...(mode === 'trivial' ? { SWARM_FAKE_LIB: fakeLibBundle! } : {}),
      ...(mode !== 'runtime'
        ? { SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE]) }
        : { ANTHROPIC_BASE_URL: standin!.url, ANTHROPIC_API_KEY: 'sk-bench', SWARM_HEARTBEAT_MS: '1000', SWARM_POLL_MS: '250' }),
    };
    const { backend } = await selectBackend({ requested: 'tmux', env, team: new Team(root, TEAM), killTimeoutMs: 3000 });
    const list: SpawnOptions[] = Array.from({ length: n }, (_, i) => ({
      team: new Team(root, TEAM),
      name: `w${i + 1}`,
      prompt: `hello w${i + 1}`,
      cwd: root,
      backend,
      env,
      readyTimeoutMs: 30_000,
    }));
    const failed: string[] = [];
    const t0 = performance.now();
    if (strategy === 'serial') {
      for (const o of list) {
        const r = await spawnTeammate(o).catch((e: unknown) => (failed.push(`${o.name}: ${String(e).split('\n')[0]}`), undefined));
        if (r?.pid !== undefined) pids.add(r.pid);
      }
    } else {
      for (const r of await spawnTeammates(list)) {
        if (r.ok && r.teammate.pid !== undefined) pids.add(r.teammate.pid);
        if (!r.ok) failed.push(`${r.name}: ${r.error.message.split('\n')[0]}`);
      }
    }
    const readyMs = performance.now() - t0;

    const before = (await readTeam(new Team(root, TEAM))).members.filter((m) => m.name !== 'team-lead');
    const paneIds = new Set(before.map((m) => m.tmuxPaneId));
    const t1 = performance.now();
    const outcomes = await shutdownAll(new Team(root, TEAM), { env, timeoutMs: 10_000, force: true, exitGraceMs: 3000, killTimeoutMs: 3000 });
    const stopMs = performance.now() - t1;
    const panesLeft = (await listAllPanes(new TmuxServer({ socket }))).filter((p) => paneIds.has(p.paneId));
    const membersLeft = (await readTeam(new Team(root, TEAM))).members.filter((m) => m.name !== 'team-lead');
    const procsLeft = [...pids].filter(isProcessAlive);
    const verified =
      outcomes.every((o) => o.verified) && panesLeft.length === 0 && membersLeft.length === 0 && procsLeft.length === 0;
    if (!verified) {
      failed.push(
        `stop: ${outcomes.filter((o) => !o.verified).map((o) => `${o.name} ${o.outcome} ${o.reason ?? ''}`).join('; ')}` +
          ` panes left ${panesLeft.length}, members left ${membersLeft.length}, processes left ${procsLeft.length}`,
      );
    }
    return { ready: before.length, readyMs, stopMs, verified, failed };
  } finally {
    await reap(socket);
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    await rm(root, { recursive: true, force: true });
    await standin?.close();
  }
}

/** Raw tmux: a session, then N `split-window -- sleep 60 ; select-layout tiled` calls. */
export async function baseline(n: number): Promise<{ readyMs: number; stopMs: number; verified: boolean }> {
  const socket = privateSocket();
  const server = new TmuxServer({ socket });
  try {
    const t0 = performance.now();
    const first = await newSession(server, { name: 'bench', argv: ['sleep', '60'] });
    for (let i = 0; i < n; i++) {
      await server.runChain([
        ['split-window', '-d', '-t', first.windowId, '-P', '-F', '#{pane_id}', '--', 'sleep', '60'],
        ['select-layout', '-t', first.windowId, 'tiled'],
      ]);
    }
    const readyMs = performance.now() - t0;
    const panes = await listAllPanes(server);
    const t1 = performance.now();
    await server.run(['kill-session', '-t', '=bench']);
    // Verified as for teammates: no pane listed, every pane process gone (they get SIGHUP).
    const gone = await pollUntil(async () => (await listAllPanes(server)).length === 0 && !panes.some((p) => isProcessAlive(p.pid)), 3000, 10);
    const stopMs = performance.now() - t1;
    return { readyMs, stopMs, verified: gone && panes.length === n + 1 };
  } finally {
    await reap(socket);
  }
}

export async function spawnBench(): Promise<void> {
  const levels = process.env.BENCH_LEVELS ? process.env.BENCH_LEVELS.split(',').map(Number) : [1, 4, 8, 16];
  const only = process.env.BENCH_ONLY;
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  process.stdout.write(`\nload average at start: ${load}; tmux on private sockets swarm-bench-<hex>\n`);
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  const libDir = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-fake-lib-'));
  fakeLibBundle = await bundleFakeLib(libDir);
  await measure('trivial', 'serial', 1); // warm-up (module loading, JIT), not reported
  if (!only || only === 'baseline') {
    for (const n of levels) {
      const b = await baseline(n);
      rows.push(['baseline: raw tmux split-window + tiled, `sleep 60`, no handshake', n, n, b.readyMs, b.readyMs / n, b.stopMs, b.verified ? 'yes (kill-session)' : 'NO']);
      process.stderr.write('.');
    }
  }
  {
    for (const mode of ['trivial', 'trivial-modules', 'runtime'] as const) {
      if (only && only !== mode) continue;
      for (const strategy of ['serial', 'overlapped'] as const) {
        for (const n of levels) {
          const m = await measure(mode, strategy, n);
          const label = `${MODE_LABEL[mode]}, ${strategy === 'serial' ? 'spawnTeammate x N' : 'spawnTeammates'}`;
          rows.push([label, n, m.ready, m.readyMs, m.readyMs / n, m.stopMs, m.verified ? 'yes' : 'NO']);
          for (const f of m.failed) notes.push(`${label}, N=${n}: ${f}`);
        }
      }
    }
  }
  process.stdout.write(
    `\n### Spawn until ready, and stop-all (shutdownAll, verified)\n\n` +
      table(['what', 'N', 'ready', 'ready ms', 'ms / teammate', 'stop-all ms', 'stop verified'], rows),
  );
  for (const note of notes) process.stdout.write(`- ${note}\n`);
  process.stdout.write(`\nload average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  await rm(libDir, { recursive: true, force: true });
}
