// Scale benchmark (issue 35): a team of N = 10, 50, 100 swarm-runtime teammates on one machine,
// each against the stand-in Messages API, in tmux on a private server, with the leader console
// (`swarm lead`, in a pane of the same server) running. Per N, in two phases:
//   A (no hibernation): spawnTeammates until all are ready; all idle, then 10 s to settle; the team's
//     RSS (teammates and console, VmRSS) and the console's CPU over a 60 s window; a broadcast (`*`)
//     from this process, per recipient the time from the send to its read (the issue's "send to last
//     read": the entry taken from its inbox and marked read, as its transcript's message_in says) and
//     to its first model request carrying it (p50/p99/max); and where its time went: how long the N appends took, and the CPU of each
//     teammate, the console and this process (sender and stand-in) from the send until all were
//     idle again, with what that CPU alone takes on this machine's cores.
//   B (hibernateAfter 2s): the same team spawned again, all asleep (state hibernating); the team's
//     RSS then; and K wakes, one at a time: a message to a sleeper (appended here, as any sender
//     does), the console's waker resumes it, time to its first model request (p50/p99).
// Baselines in the same run: raw tmux `split-window sleep 60` ×N (spawn), N bare idle node
// processes (RSS), a bare idle node (CPU), a message to an awake idle teammate (wake), a direct
// message to one awake teammate (broadcast). Writes docs/bench/scale.svg (the figures against N).
// BENCH_LEVELS=10,50 narrows the levels; BENCH_WAKES (default 10) sets K; BENCH_KEEP=1 keeps the temp
// roots (their logs) for a look after a failure; TMPDIR says where the roots go (the header names
// that file system and its mount options).
import { spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive, pollUntil } from '../../src/backends/process.js';
import { selectBackend } from '../../src/backends/registry.js';
import { TmuxServer, newSession } from '../../src/backends/tmux/commands.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { sendMessage } from '../../src/mailbox/send.js';
import { lastUserText } from '../../src/standin/request.js';
import { startMessagesServer, type MessagesServer } from '../../src/standin/messages-server.js';
import { jsonlValues, readJsonl } from '../../src/storage/jsonl.js';
import { filesystemOf } from '../../src/storage/mounts.js';
import { collectStatus } from '../../src/teammates/status-report.js';
import { spawnTeammates } from '../../src/teammates/spawn.js';
import { shutdownAll } from '../../src/teammates/stop.js';
import { createTeam, readTeam, setHibernateAfter } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { CLK_TCK, measureWindow, sample } from './runtime.js';
import { privateSocket, reap } from './spawn.js';
import { summarize, table } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const SWARM_BIN = path.join(REPO, 'bin/swarm.js');
const TEAM = 'scale';
/** After all are idle, before the idle window: the console's reading of the idle notifications. */
const SETTLE_MS = 10_000;
/**
 * The idle window (RSS and CPU): six lease renewals, and at N = 100 about one status sweep (a big
 * team's runs less often, at most 0.3 % of the time: one more or fewer in a 30 s window moved the
 * figure by half a point).
 */
const IDLE_WINDOW_MS = 60_000;

interface Level {
  n: number;
  readyMs: number;
  rawTmuxMs: number;
  rssAwakeMb: number;
  pssAwakeMb: number;
  rssAsleepMb: number;
  rssBareMb: number;
  consoleCpuPct: number;
  bareCpuPct: number;
  broadcast: { p50: number; p99: number; max: number };
  /** The same broadcast to each recipient's read: its transcript's message_in (the entry taken from the inbox, marked read). */
  broadcastRead: { p50: number; p99: number; max: number };
  /** Where the broadcast's time went: the send itself, and CPU from the send until all were idle again. */
  broadcastCost: { sendMs: number; teammateCpuMs: number; consoleCpuMs: number; benchCpuMs: number };
  direct: number;
  wake: { p50: number; p99: number };
  failed: string[];
}

async function waitUntil(cond: () => Promise<boolean>, ms: number, what: string, why?: () => Promise<string>): Promise<void> {
  if (!(await pollUntil(cond, ms, 100))) throw new Error(`timed out after ${ms} ms waiting for ${what}${why ? `: ${await why()}` : ''}`);
}

/** A team with N teammates ready, the console running; `done()` stops everything this started. */
async function startTeam(n: number, hibernateAfterMs: number | undefined, standin: MessagesServer) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-scale-'));
  const socket = privateSocket();
  const pids = new Set<number>();
  const team = new Team(root, TEAM);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? root,
    CLAUDE_CONFIG_DIR: root,
    SWARM_TMUX_SOCKET: socket,
    ANTHROPIC_BASE_URL: standin.url,
    ANTHROPIC_API_KEY: 'sk-bench',
    SWARM_HEARTBEAT_MS: '5000',
  };
  await createTeam(root, { name: TEAM, cwd: root });
  await setHibernateAfter(team, hibernateAfterMs);
  const server = new TmuxServer({ socket });
  // The console first, in its own session of the private server: it holds the lease and wakes sleepers.
  await newSession(server, { name: 'console', argv: ['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), process.execPath, SWARM_BIN, 'lead', '--team', TEAM] });
  await waitUntil(async () => (await readTeam(team)).leadProcess !== undefined, 20_000, 'the console to take the lease');
  const consolePid = (await readTeam(team)).leadProcess!.pid;
  const { backend } = await selectBackend({ requested: 'tmux', env, team, killTimeoutMs: 3000 });
  const failed: string[] = [];
  const t0 = performance.now();
  const results = await spawnTeammates(Array.from({ length: n }, (_, i) => ({ team, name: `w${i + 1}`, prompt: `hello w${i + 1}`, cwd: root, backend, env, readyTimeoutMs: 120_000 })));
  const readyMs = performance.now() - t0;
  for (const r of results) {
    if (r.ok && r.teammate.pid !== undefined) pids.add(r.teammate.pid);
    if (!r.ok) failed.push(`${r.name}: ${r.error.message.split('\n')[0]}`);
  }
  const states = async () => (await collectStatus(team, { env })).report.members.slice(1).map((m) => ({ name: m.name, state: m.state, pid: m.pid }));
  return {
    team,
    env,
    readyMs,
    failed,
    consolePid,
    states,
    livePids: async () => (await states()).flatMap((m) => (m.pid !== null && isProcessAlive(m.pid) && m.state !== 'hibernating' ? [m.pid] : [])),
    done: async () => {
      for (const m of await states()) if (m.pid !== null) pids.add(m.pid);
      await shutdownAll(team, { env, timeoutMs: 20_000, force: true, exitGraceMs: 3000, killTimeoutMs: 3000 }).catch(() => []);
      await reap(socket);
      for (const pid of [...pids, consolePid]) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
      if (process.env.BENCH_KEEP) process.stderr.write(`kept ${root}\n`);
      else await rm(root, { recursive: true, force: true });
    },
  };
}

/** The baseline: N raw tmux panes running `sleep 60` (8 to a window), no handshake; ms until all exist. */
async function rawTmux(n: number): Promise<number> {
  const socket = privateSocket();
  const server = new TmuxServer({ socket });
  try {
    const t0 = performance.now();
    let window = (await newSession(server, { name: 'bench', argv: ['sleep', '60'] })).windowId;
    for (let i = 1; i < n; i++) {
      if (i % 8 === 0) {
        window = (await server.run(['new-window', '-d', '-t', 'bench:', '-P', '-F', '#{window_id}', '--', 'sleep', '60'])).trim();
        continue;
      }
      await server.runChain([
        ['split-window', '-d', '-t', window, '-P', '-F', '#{pane_id}', '--', 'sleep', '60'],
        ['select-layout', '-t', window, 'tiled'],
      ]);
    }
    return performance.now() - t0;
  } finally {
    await reap(socket);
  }
}

/**
 * Where the team roots go (TMPDIR) and how that file system is mounted: every inbox write is a
 * rename that frees the old file's blocks, and a file system mounted `discard` trims them there and
 * then, in the process that frees them, which the broadcast figures show.
 */
async function rootsAt(): Promise<string> {
  const dir = await fs.realpath(os.tmpdir());
  const mount = await filesystemOf(dir);
  const options = mount && (await fs.readFile('/proc/mounts', 'utf8')).split('\n').map((l) => l.split(' ')).find((f) => f[1] === mount.mountPoint)?.[3];
  return `team roots in ${dir} (${mount?.type ?? 'unknown file system'}${options ? ` ${options}` : ''})`;
}

/** Per teammate, when its transcript says it read (took from its inbox) the message holding `token` (epoch ms). */
async function readAt(team: Team, names: string[], token: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of names) {
    const events = jsonlValues(await readJsonl(team.paths.log(name))) as { kind?: string; at?: string; text?: string }[];
    const read = events.find((e) => e.kind === 'message_in' && e.at !== undefined && e.text?.includes(token) === true);
    if (read) out.push(Date.parse(read.at!));
  }
  return out;
}

/** Per agent, when the stand-in first received a request whose last user message holds `token` (epoch ms). */
function firstSeen(standin: MessagesServer, token: string): Map<string, number> {
  const seen = new Map<string, number>();
  for (const r of standin.requests) if (r.body !== undefined && !seen.has(r.agent) && lastUserText(r.body).includes(token)) seen.set(r.agent, r.receivedAt);
  return seen;
}

function bareNodes(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawnChild(process.execPath, ['-e', 'setInterval(()=>{},1e6)'], { stdio: 'ignore' }));
}

async function level(n: number, wakes: number): Promise<Level> {
  // Every request answered `Ready.` (each agent's one turn, then `exhaustedReply`), shutdowns approved.
  const turns = Array.from({ length: n }, (_, i) => ({ match: { agent: `w${i + 1}` }, reply: 'Ready.' }));
  const standin = await startMessagesServer({ script: { shutdown: 'approve', exhaustedReply: 'Ready.', turns } });
  try {
    // A: awake.
    const a = await startTeam(n, undefined, standin);
    let phaseA: Pick<Level, 'readyMs' | 'rssAwakeMb' | 'pssAwakeMb' | 'consoleCpuPct' | 'broadcast' | 'broadcastRead' | 'broadcastCost' | 'direct'>;
    const bare = bareNodes(n);
    let rssBareMb = 0;
    let bareCpuPct = 0;
    try {
      await waitUntil(async () => (await a.states()).every((m) => m.state === 'idle'), 120_000, 'all idle', async () => JSON.stringify(await a.states()));
      const pids = await a.livePids();
      // Idle means settled: the console has shown (and consumed) the N idle notifications, the bare
      // nodes have started. Then the idle window.
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const usage = await measureWindow([...pids, a.consolePid, ...bare.map((b) => b.pid!)], IDLE_WINDOW_MS);
      const mine = usage.slice(0, pids.length + 1);
      rssBareMb = usage.slice(pids.length + 1).reduce((s, u) => s + u.rssMb, 0);
      bareCpuPct = usage.at(-1)!.cpuPct;
      const mailbox = new Mailbox({ team: a.team });
      // One direct message to an awake idle teammate, then a broadcast to all.
      const t1 = Date.now();
      await sendMessage(mailbox, { to: 'w1', from: 'team-lead', text: 'DIRECT-1' });
      await waitUntil(async () => firstSeen(standin, 'DIRECT-1').has('w1'), 30_000, 'the direct message');
      const direct = firstSeen(standin, 'DIRECT-1').get('w1')! - t1;
      await waitUntil(async () => (await a.states()).every((m) => m.state === 'idle'), 60_000, 'all idle again', async () => JSON.stringify(await a.states()));
      const ticksBefore = await Promise.all([...pids, a.consolePid].map(sample));
      const benchBefore = process.cpuUsage();
      const t2 = Date.now();
      await sendMessage(mailbox, { to: '*', from: 'team-lead', text: 'BROADCAST-1' });
      const sendMs = Date.now() - t2;
      await waitUntil(async () => firstSeen(standin, 'BROADCAST-1').size >= n, 120_000, 'every recipient to read the broadcast');
      const lat = summarize([...firstSeen(standin, 'BROADCAST-1').values()].map((t) => t - t2));
      const read = summarize((await readAt(a.team, Array.from({ length: n }, (_, i) => `w${i + 1}`), 'BROADCAST-1')).map((t) => t - t2));
      await waitUntil(async () => (await a.states()).every((m) => m.state === 'idle'), 120_000, 'all idle after the broadcast');
      const ticksAfter = await Promise.all([...pids, a.consolePid].map(sample));
      const bench = process.cpuUsage(benchBefore);
      const cpuMs = (i: number): number => ((ticksAfter[i]!.ticks - ticksBefore[i]!.ticks) / CLK_TCK) * 1000;
      phaseA = {
        readyMs: a.readyMs,
        rssAwakeMb: mine.reduce((s, u) => s + u.rssMb, 0),
        pssAwakeMb: mine.reduce((s, u) => s + u.pssMb, 0),
        consoleCpuPct: usage[pids.length]!.cpuPct,
        broadcast: { p50: lat.p50, p99: lat.p99, max: lat.max },
        broadcastRead: { p50: read.p50, p99: read.p99, max: read.max },
        broadcastCost: {
          sendMs,
          teammateCpuMs: pids.reduce((s, _, i) => s + cpuMs(i), 0) / pids.length,
          consoleCpuMs: cpuMs(pids.length),
          benchCpuMs: (bench.user + bench.system) / 1000,
        },
        direct,
      };
    } finally {
      for (const b of bare) b.kill('SIGKILL');
      await a.done();
    }
    const rawTmuxMs = await rawTmux(n);

    // B: hibernating.
    const b = await startTeam(n, 2000, standin);
    try {
      await waitUntil(async () => (await b.states()).every((m) => m.state === 'hibernating'), 180_000, 'all asleep');
      const asleepPids = await b.livePids();
      const rssAsleepMb = (await Promise.all([...asleepPids, b.consolePid].map(sample))).reduce((s, x) => s + x.rssKb / 1024, 0);
      const mailbox = new Mailbox({ team: b.team });
      const lat: number[] = [];
      for (let k = 1; k <= Math.min(wakes, n); k++) {
        const name = `w${k}`;
        const token = `WAKE-${k}`;
        const t = Date.now();
        await sendMessage(mailbox, { to: name, from: 'team-lead', text: token });
        await waitUntil(async () => firstSeen(standin, token).has(name), 30_000, `${name} to wake`);
        lat.push(firstSeen(standin, token).get(name)! - t);
      }
      const w = summarize(lat);
      return { n, rawTmuxMs, rssAsleepMb, rssBareMb, bareCpuPct, wake: { p50: w.p50, p99: w.p99 }, failed: [...a.failed, ...b.failed], ...phaseA };
    } finally {
      await b.done();
    }
  } finally {
    await standin.close();
  }
}

/** The figures against N as a small SVG line chart: one panel per unit. */
function plot(levels: Level[]): string {
  const W = 760;
  const H = 260;
  const panels: { title: string; unit: string; series: { label: string; color: string; values: number[] }[] }[] = [
    { title: 'all ready (s)', unit: 's', series: [{ label: 'swarm', color: '#1f77b4', values: levels.map((l) => l.readyMs / 1000) }, { label: 'raw tmux', color: '#aaa', values: levels.map((l) => l.rawTmuxMs / 1000) }] },
    {
      title: 'team RSS idle (MB)',
      unit: 'MB',
      series: [
        { label: 'awake', color: '#d62728', values: levels.map((l) => l.rssAwakeMb) },
        { label: 'awake PSS', color: '#e6a0a0', values: levels.map((l) => l.pssAwakeMb) },
        { label: 'hibernating', color: '#2ca02c', values: levels.map((l) => l.rssAsleepMb) },
        { label: 'bare node ×N', color: '#aaa', values: levels.map((l) => l.rssBareMb) },
      ],
    },
    { title: 'latency (s)', unit: 's', series: [{ label: 'wake p50', color: '#9467bd', values: levels.map((l) => l.wake.p50 / 1000) }, { label: 'broadcast read p99', color: '#ff7f0e', values: levels.map((l) => l.broadcastRead.p99 / 1000) }, { label: 'request p99', color: '#e7ba52', values: levels.map((l) => l.broadcast.p99 / 1000) }] },
  ];
  const pw = W / panels.length;
  const ns = levels.map((l) => l.n);
  const xs = (n: number, i: number): number => i * pw + 40 + ((n - Math.min(...ns)) / Math.max(1, Math.max(...ns) - Math.min(...ns))) * (pw - 60);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`, `<rect width="${W}" height="${H}" fill="white"/>`];
  panels.forEach((p, i) => {
    const max = Math.max(1e-9, ...p.series.flatMap((s) => s.values)) * 1.1;
    const ys = (v: number): number => H - 40 - (v / max) * (H - 80);
    out.push(`<text x="${i * pw + 40}" y="16" font-weight="bold">${p.title}</text>`);
    out.push(`<line x1="${i * pw + 40}" y1="${H - 40}" x2="${i * pw + pw - 20}" y2="${H - 40}" stroke="#333"/><line x1="${i * pw + 40}" y1="30" x2="${i * pw + 40}" y2="${H - 40}" stroke="#333"/>`);
    out.push(`<text x="${i * pw + 4}" y="34">${max.toFixed(max < 10 ? 1 : 0)}</text><text x="${i * pw + 30}" y="${H - 36}">0</text>`);
    for (const n of ns) out.push(`<text x="${xs(n, i) - 8}" y="${H - 24}">N=${n}</text>`);
    p.series.forEach((s, k) => {
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.values.map((v, j) => `${xs(ns[j]!, i).toFixed(1)},${ys(v).toFixed(1)}`).join(' ')}"/>`);
      for (const [j, v] of s.values.entries()) out.push(`<circle cx="${xs(ns[j]!, i).toFixed(1)}" cy="${ys(v).toFixed(1)}" r="3" fill="${s.color}"/>`);
      out.push(`<text x="${i * pw + 50}" y="${H - 6 - (p.series.length - 1 - k) * 0}" dx="${k * 80}" fill="${s.color}">${s.label}</text>`);
    });
  });
  out.push('</svg>');
  return out.join('\n');
}

export async function scaleBench(): Promise<void> {
  const levels = process.env.BENCH_LEVELS ? process.env.BENCH_LEVELS.split(',').map(Number) : [10, 50, 100];
  const wakes = Number(process.env.BENCH_WAKES ?? 10);
  process.stdout.write(`\nload average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; tmux on private sockets swarm-bench-<hex>; teammates against the stand-in; ${await rootsAt()}\n`);
  const rows: Level[] = [];
  for (const n of levels) {
    const began = performance.now();
    rows.push(await level(n, wakes));
    process.stderr.write(`[scale N=${n}: ${Math.round((performance.now() - began) / 1000)} s with setup and cleanup]\n`);
  }
  const f = (x: number): string => x.toFixed(0);
  process.stdout.write(
    `\n${table(
      ['N', 'all ready ms', 'baseline raw tmux ms', 'team RSS awake MB', 'team PSS awake MB', 'team RSS hibernating MB', 'baseline N bare node MB', 'console CPU % (N idle)', 'baseline bare node CPU %', 'wake p50 ms', 'wake p99 ms', 'baseline: message to an awake teammate ms', 'broadcast read p50 ms', 'broadcast read p99 ms', 'broadcast request p50 ms', 'broadcast request p99 ms', 'broadcast request max ms'],
      rows.map((l) => [l.n, f(l.readyMs), f(l.rawTmuxMs), f(l.rssAwakeMb), f(l.pssAwakeMb), f(l.rssAsleepMb), f(l.rssBareMb), l.consoleCpuPct.toFixed(2), l.bareCpuPct.toFixed(2), f(l.wake.p50), f(l.wake.p99), f(l.direct), f(l.broadcastRead.p50), f(l.broadcastRead.p99), f(l.broadcast.p50), f(l.broadcast.p99), f(l.broadcast.max)]),
    )}\n`,
  );
  process.stdout.write(
    `\n${table(
      ['N', 'broadcast send ms (N appends)', 'CPU ms per teammate, send to all idle', 'console CPU ms', 'bench CPU ms (sender and stand-in)', 'all of it on 2 cores, s', 'broadcast read p99 ms', 'broadcast request p99 ms'],
      rows.map((l) => {
        const c = l.broadcastCost;
        return [l.n, f(c.sendMs), f(c.teammateCpuMs), f(c.consoleCpuMs), f(c.benchCpuMs), ((c.teammateCpuMs * l.n + c.consoleCpuMs + c.benchCpuMs) / 1000 / os.cpus().length).toFixed(1), f(l.broadcastRead.p99), f(l.broadcast.p99)];
      }),
    )}\n`,
  );
  process.stdout.write('team RSS = the teammates’ processes and the console (VmRSS); PSS counts the pages they share (the node binary) once among them; hibernating: only the console is left. Wake and broadcast request: from the send to the stand-in receiving the first request that carries the message; broadcast read: from the send to the recipient taking it from its inbox (marked read; the message_in line of its transcript).\n');
  for (const l of rows) for (const x of l.failed) process.stdout.write(`failed (N=${l.n}): ${x}\n`);
  process.stdout.write(`load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
  const svg = path.join(REPO, 'docs/bench/scale.svg');
  await fs.mkdir(path.dirname(svg), { recursive: true });
  await fs.writeFile(svg, plot(rows));
  process.stdout.write(`plot: ${path.relative(REPO, svg)}\n`);
}
