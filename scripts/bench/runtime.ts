// Teammate runtime benchmark (issue 5): real `swarm teammate` processes against the stand-in
// Messages API, each on a team the bench creates in a temp CLAUDE_CONFIG_DIR.
//   1. Idle cost: 1 and 20 teammates finish their first turn and go idle (and 20 that have had no
//      message yet: started, status written, nothing asked of the model); then RSS (VmRSS, RssAnon
//      from /proc/<pid>/status) and CPU (utime+stime from /proc/<pid>/stat over a 10 s window) per
//      process, beside a bare `node -e "setInterval(()=>{},1e6)"` baseline measured in the same
//      windows. Entries: `bin/swarm.js` (fast path: only the teammate runtime is loaded) without node
//      flags, the command a backend spawns (the fast path with TEAMMATE_NODE_FLAGS), and three
//      "before" variants with the earlier flags (a 1 MB young generation only): as is, with Node's
//      fetch in memory (undici-teammate.mjs: before runtime/model-fetch.ts), and with the SDK and
//      execa imported at start (eager-teammate.mjs: before issue 35 made them lazy). CPU is
//      reported for the first 10 s after going idle (GC settling) and, with RSS, for a 10 s window
//      that starts 40 s after going idle (V8's memory reducer shrinks the heap 20-30 s after the
//      last allocation; what a teammate idle for a while costs).
//   2. Overhead per tool round excluding the model: a turn of ROUNDS rounds of a cheap tool (Read
//      of a small file, Glob) in bypassPermissions mode, entries interleaved and repeated; per
//      round, the time from the stand-in finishing its reply to it receiving the next request
//      (both stamped server-side, one clock).
// Targets: idle CPU ~0 %, idle RSS < 80 MB (issue 5), < 60 MB (issue 35).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEAMMATE_NODE_FLAGS } from '../../src/teammates/command-line.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { StatusFileSchema } from '../../src/protocol/status.js';
import { startMessagesServer, type MessagesServer, type ScriptInput } from '../../src/standin/messages-server.js';
import { addMember, createTeam, teamPaths } from '../../src/team/index.js';
import { summarize, table } from './stats.js';
import { Team } from '../../src/team/team.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const SWARM_BIN = path.join(REPO, 'bin/swarm.js');
const EAGER = path.join(HERE, 'eager-teammate.mjs');
const UNDICI = path.join(HERE, 'undici-teammate.mjs');
/** The teammate's node flags before `--no-opt` (a 1 MB young generation only). */
const OLD_FLAGS = ['--max-semi-space-size=1'];
const TEAM = 'bench';
const WINDOW_MS = 10_000;
/** From the end of the first window to the start of the settled one. */
const SETTLE_MS = 30_000;
const ROUNDS = 100;
const ROUND_REPEATS = 3;
export const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** How a process is started: node arguments before the teammate flags (none for the baseline). */
interface Entry {
  label: string;
  nodeArgs: string[];
}

const ENTRIES: Entry[] = [
  { label: 'teammate via bin/swarm.js (fast path, no node flags)', nodeArgs: [SWARM_BIN] },
  { label: `node ${OLD_FLAGS.join(' ')}, SDK + execa loaded at start (before issue 35)`, nodeArgs: [...OLD_FLAGS, EAGER] },
  { label: `node ${OLD_FLAGS.join(' ')}, Node's fetch (undici) loaded (before model-fetch.ts)`, nodeArgs: [...OLD_FLAGS, UNDICI] },
  { label: `node ${OLD_FLAGS.join(' ')} bin/swarm.js (before the flags)`, nodeArgs: [...OLD_FLAGS, SWARM_BIN] },
  { label: `as spawned: node ${TEAMMATE_NODE_FLAGS.join(' ')} bin/swarm.js (after)`, nodeArgs: [...TEAMMATE_NODE_FLAGS, SWARM_BIN] },
];
const BASELINE: Entry = { label: 'baseline: node -e setInterval', nodeArgs: ['-e', 'setInterval(()=>{},1e6); process.stdout.write("ready\\n")'] };

interface Proc {
  child: ChildProcess;
  pid: number;
  output(): string;
  exited: Promise<void>;
}

function startProc(nodeArgs: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, nodeArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer): void => {
    out = (out + d.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.pid === undefined) throw new Error(`could not start ${nodeArgs.join(' ')}`);
  return { child, pid: child.pid, output: () => out, exited };
}

/** SIGTERM each process we started, by pid; SIGKILL any still running after 5 s; wait for every exit. */
async function stopProcs(procs: Proc[]): Promise<void> {
  await Promise.all(
    procs.map(async (p) => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) return;
      p.child.kill('SIGTERM');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 5000);
      await p.exited;
      clearTimeout(timer);
    }),
  );
}

async function waitFor<T>(cond: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await cond();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface ProcSample {
  rssKb: number;
  anonKb: number;
  /** Proportional set size: pages shared with other processes (the node binary) counted by share. */
  pssKb: number;
  ticks: number;
}

export async function sample(pid: number): Promise<ProcSample> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
  const rollup = await fs.readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  const pssKb = Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), anonKb: kb('RssAnon'), pssKb, ticks: Number(fields[11]) + Number(fields[12]) };
}

export interface Usage {
  rssMb: number;
  pssMb: number;
  anonMb: number;
  cpuPct: number;
}

/** RSS at the end and CPU % over one shared window, for every pid. */
export async function measureWindow(pids: number[], windowMs = WINDOW_MS): Promise<Usage[]> {
  const before = await Promise.all(pids.map(sample));
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, windowMs)); // the measurement window itself, not a wait on a condition
  const after = await Promise.all(pids.map(sample));
  const seconds = (performance.now() - t0) / 1000;
  return after.map((a, i) => ({
    rssMb: a.rssKb / 1024,
    pssMb: a.pssKb / 1024,
    anonMb: a.anonKb / 1024,
    cpuPct: ((a.ticks - before[i]!.ticks) / CLK_TCK / seconds) * 100,
  }));
}

interface BenchTeam {
  root: string;
  work: string;
  args(name: string): string[];
  env(server: MessagesServer): NodeJS.ProcessEnv;
  prompt(name: string, text: string): Promise<void>;
  idle(name: string): Promise<boolean>;
  /** Its status file is written (state starting while no message has come). */
  started(name: string): Promise<boolean>;
  done(): Promise<void>;
}

async function benchTeam(members: { name: string; mode?: string }[]): Promise<BenchTeam> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'swarm-bench-rt-'));
  const work = path.join(root, 'work');
  await fs.mkdir(work);
  const { config } = await createTeam(root, { name: TEAM, cwd: work });
  for (const m of members) await addMember(new Team(root, TEAM), { name: m.name, cwd: work, ...(m.mode ? { mode: m.mode } : {}) });
  const { mailbox: lead, key } = await openLeadMailbox({ team: new Team(root, TEAM) });
  const paths = teamPaths(root, TEAM);
  return {
    root,
    work,
    args: (name) => [
      'teammate',
      '--agent-id',
      `${name}@${TEAM}`,
      '--agent-name',
      name,
      '--team-name',
      TEAM,
      '--agent-color',
      'blue',
      '--parent-session-id',
      config.leadSessionId,
      '--lead-verify-key',
      key.verifyKey,
    ],
    // Production timings (heartbeat, inbox poll): only the retry base is shortened.
    env: (server) => ({
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: root,
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-bench',
      NO_COLOR: '1',
      SWARM_RETRY_BASE_MS: '10',
    }),
    prompt: async (name, text) => {
      await lead.append(name, { from: 'team-lead', text });
    },
    idle: async (name) => {
      try {
        return StatusFileSchema.parse(JSON.parse(await fs.readFile(paths.status(name), 'utf8'))).state === 'idle';
      } catch {
        return false;
      }
    },
    started: async (name) => {
      try {
        return StatusFileSchema.safeParse(JSON.parse(await fs.readFile(paths.status(name), 'utf8'))).success;
      } catch {
        return false;
      }
    },
    done: () => fs.rm(root, { recursive: true, force: true }),
  };
}

interface IdleRow {
  entry: string;
  n: number;
  /** The settled window (40 s after going idle); CPU % of the first window (right after going idle) kept apart. */
  usage: Usage[];
  firstCpu: number[];
  startMs: number;
}

/** N teammates (one entry) plus one baseline process, all idle, measured in one window; `prompted` false: no message at all (no model call). */
export async function idleRun(entry: Entry, n: number, prompted = true): Promise<{ teammates: IdleRow; baseline: Usage }> {
  const names = Array.from({ length: n }, (_, i) => `m${i}`);
  const team = await benchTeam(names.map((name) => ({ name })));
  const server = await startMessagesServer({ script: { turns: names.map((name) => ({ match: { agent: name }, reply: 'Ready and idle.' })), exhaustedReply: 'Idle.' } });
  const procs: Proc[] = [];
  try {
    if (prompted) for (const name of names) await team.prompt(name, `You are ${name}; say you are ready.`);
    const t0 = performance.now();
    for (const name of names) procs.push(startProc([...entry.nodeArgs, ...team.args(name)], team.env(server)));
    const base = startProc(BASELINE.nodeArgs, { PATH: process.env.PATH ?? '/usr/bin:/bin' });
    procs.push(base);
    await Promise.all(
      names.map((name, i) =>
        waitFor(
          async () => {
            if (procs[i]!.child.exitCode !== null) throw new Error(`${name} exited early:\n${procs[i]!.output()}`);
            return (await (prompted ? team.idle(name) : team.started(name))) ? true : undefined;
          },
          60_000,
          `${name} ${prompted ? 'idle' : 'started'}`,
        ),
      ),
    );
    const startMs = performance.now() - t0;
    await waitFor(async () => (base.output().includes('ready') ? true : undefined), 10_000, 'baseline ready');
    const pids = procs.map((p) => p.pid);
    const first = await measureWindow(pids);
    await new Promise((r) => setTimeout(r, SETTLE_MS)); // idle for a while: the heap settles
    const usage = await measureWindow(pids);
    return {
      teammates: { entry: prompted ? entry.label : `${entry.label}, no message yet`, n, usage: usage.slice(0, n), firstCpu: first.slice(0, n).map((u) => u.cpuPct), startMs },
      baseline: usage[n]!,
    };
  } finally {
    await stopProcs(procs);
    await server.close();
    await team.done();
  }
}

interface RoundStats {
  tool: string;
  gaps: number[];
  model: number[];
  wall: number[];
}

/** One teammate runs a turn of ROUNDS rounds of `tool`; per-round gaps from server-side timestamps. */
export async function toolRounds(entry: Entry, tool: 'Read' | 'Glob'): Promise<RoundStats> {
  const name = 'runner';
  const team = await benchTeam([{ name, mode: 'bypassPermissions' }]);
  const small = path.join(team.work, 'small.txt');
  await fs.writeFile(small, 'one small line\n'.repeat(20));
  const input = tool === 'Read' ? { file_path: small } : { pattern: '*.txt', path: team.work };
  const turns: ScriptInput['turns'] = [
    ...Array.from({ length: ROUNDS }, () => ({ match: { agent: name }, reply: { content: [{ type: 'tool_use' as const, name: tool, input }] } })),
    { match: { agent: name }, reply: 'All rounds done.' },
  ];
  const now = (): number => performance.timeOrigin + performance.now();
  const answered: { receivedAt: number; answeredAt: number }[] = [];
  const server = await startMessagesServer({
    script: { turns, exhaustedReply: 'Idle.' },
    now,
    onRequest: (r) => {
      if (r.agent === name) answered.push({ receivedAt: r.receivedAt, answeredAt: now() });
    },
  });
  const procs: Proc[] = [];
  try {
    await team.prompt(name, `Use ${tool} ${ROUNDS} times.`);
    procs.push(startProc([...entry.nodeArgs, ...team.args(name)], team.env(server)));
    await waitFor(
      async () => {
        if (procs[0]!.child.exitCode !== null) throw new Error(`${name} exited early:\n${procs[0]!.output()}`);
        return answered.length >= ROUNDS + 1 && (await team.idle(name)) ? true : undefined;
      },
      120_000,
      `${ROUNDS} ${tool} rounds`,
    );
    const failed = server.requests.filter((r) => r.outcome !== 'reply');
    if (failed.length > 0) throw new Error(`stand-in refused ${failed.length} request(s): ${failed[0]!.error ?? failed[0]!.outcome}`);
    const gaps: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i + 1 < answered.length; i++) {
      gaps.push(answered[i + 1]!.receivedAt - answered[i]!.answeredAt);
      wall.push(answered[i + 1]!.receivedAt - answered[i]!.receivedAt);
    }
    return { tool, gaps, wall, model: answered.slice(0, -1).map((a) => a.answeredAt - a.receivedAt) };
  } finally {
    await stopProcs(procs);
    await server.close();
    await team.done();
  }
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]): number => sum(xs) / Math.max(1, xs.length);
const max = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), -Infinity);

export async function runtimeBench(): Promise<void> {
  const load = execFileSync('uptime', { encoding: 'utf8' }).trim();
  process.stdout.write(`\nuptime: ${load}\nwindow ${WINDOW_MS / 1000} s, CLK_TCK ${CLK_TCK}, RSS = VmRSS, anon = RssAnon (MB)\n\n`);

  const idleRows: (string | number)[][] = [];
  for (const entry of ENTRIES) {
    for (const [n, prompted] of [[1, true], [20, true], [20, false]] as const) {
      const { teammates, baseline } = await idleRun(entry, n, prompted);
      const rss = teammates.usage.map((u) => u.rssMb);
      const cpu = teammates.usage.map((u) => u.cpuPct);
      const pct = (v: number): string => v.toFixed(2);
      idleRows.push([
        teammates.entry,
        n,
        mean(rss),
        max(rss),
        mean(teammates.usage.map((u) => u.anonMb)),
        mean(teammates.usage.map((u) => u.pssMb)),
        sum(rss),
        pct(mean(teammates.firstCpu)),
        pct(mean(cpu)),
        pct(max(cpu)),
        pct(sum(cpu)),
        Math.round(teammates.startMs),
      ]);
      const b = baseline;
      idleRows.push([`  ${BASELINE.label} (same windows)`, 1, b.rssMb, b.rssMb, b.anonMb, b.pssMb, b.rssMb, '-', pct(b.cpuPct), pct(b.cpuPct), pct(b.cpuPct), '-']);
    }
  }
  process.stdout.write(`### Idle teammates (first turn done, state idle; "no message yet": started, no model call; RSS and CPU from a 10 s window ${(WINDOW_MS + SETTLE_MS) / 1000} s after going idle)\n\n`);
  const idleHeaders = ['process', 'N', 'RSS mean MB', 'RSS max MB', 'anon mean MB', 'PSS mean MB', 'RSS sum MB', 'CPU mean % (1st window)', 'CPU mean %', 'CPU max %', 'CPU sum %', 'start→all idle (or started) ms'];
  process.stdout.write(table(idleHeaders, idleRows));

  // Entries interleaved and repeated, rounds pooled: the machine's load drifts during a run.
  const pooled = new Map<string, RoundStats>();
  for (let rep = 0; rep < ROUND_REPEATS; rep++) {
    for (const entry of ENTRIES.slice(1)) {
      for (const tool of ['Read', 'Glob'] as const) {
        const r = await toolRounds(entry, tool);
        const key = `${entry.label}\u0000${tool}`;
        const p = pooled.get(key) ?? { tool, gaps: [], wall: [], model: [] };
        pooled.set(key, { tool, gaps: [...p.gaps, ...r.gaps], wall: [...p.wall, ...r.wall], model: [...p.model, ...r.model] });
      }
    }
  }
  const roundRows: (string | number)[][] = [];
  for (const [key, r] of pooled) {
    const g = summarize(r.gaps);
    const w = summarize(r.wall);
    const m = summarize(r.model);
    roundRows.push([key.split('\u0000')[0]!, r.tool, g.n, g.p50, g.p99, g.max, g.mean, m.p50, w.p50, w.p99]);
  }
  process.stdout.write(`\n### Overhead per tool round, excluding the model (${ROUND_REPEATS} × ${ROUNDS} rounds in one turn each, bypassPermissions, ms)\n\n`);
  const roundHeaders = ['process', 'tool', 'rounds', 'overhead p50', 'overhead p99', 'overhead max', 'overhead mean', 'stand-in reply p50', 'wall/round p50', 'wall/round p99'];
  process.stdout.write(table(roundHeaders, roundRows));
  process.stdout.write('\noverhead = stand-in received request i+1 − stand-in finished reply i (client side: SSE parse, tool, transcript/status, inbox check, next request)\n');
}
