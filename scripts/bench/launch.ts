// Launch benchmark (issue 6): time from `swarm launch` of a 4-member team (real swarm runtime
// against the stand-in Messages API, tmux on a private socket) to all members ready and to the first
// and last idle notification; CPU of the leader console while 8 teammates sit idle (a 30 s window
// from 10 s after its start), next to a bare idle node process as the baseline. The launch is timed
// twice, runs interleaved: as a backend spawns a teammate (after) and with the SDK and execa
// imported at start (scripts/bench/eager-teammate.mjs through SWARM_TEAMMATE_COMMAND: before issue
// 35 made them lazy).
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { TEAMMATE_NODE_FLAGS } from '../../src/teammates/command-line.js';
import { pollUntil } from '../../src/backends/process.js';
import { isProcessAlive } from '../../src/storage/pid.js';
import { startMessagesServer } from '../../src/standin/messages-server.js';
import { summarize, table } from './stats.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SWARM = path.join(REPO, 'bin/swarm.js');
const CLK_TCK = 100;
const EAGER = path.join(REPO, 'scripts/bench/eager-teammate.mjs');

/** The teammate command each launch variant runs (extra environment of `swarm launch`). */
const VARIANTS: { label: string; env: Record<string, string> }[] = [
  { label: 'before issue 35: SDK + execa loaded at start', env: { SWARM_TEAMMATE_COMMAND: quote([process.execPath, ...TEAMMATE_NODE_FLAGS, EAGER, 'teammate']) } },
  { label: 'after: as spawned', env: {} },
];

function teamYaml(name: string, members: number): string {
  const lines = [`name: ${name}`, 'backend: tmux', 'members:'];
  for (let i = 1; i <= members; i++) lines.push(`  - name: w${i}`, `    prompt: Say hello to team-lead, then wait.`);
  return `${lines.join('\n')}\n`;
}

/** From the console's start to its idle window. */
const SETTLE_MS = 10_000;

function cpuTicks(pid: number, stat: string): number {
  // fields after the ")" of the command name: utime is field 14, stime 15 (1-based)
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]);
}

async function cpuPercent(pid: number, windowMs: number): Promise<number> {
  const a = cpuTicks(pid, await readFile(`/proc/${pid}/stat`, 'utf8'));
  await new Promise((r) => setTimeout(r, windowMs));
  const b = cpuTicks(pid, await readFile(`/proc/${pid}/stat`, 'utf8'));
  return ((b - a) / CLK_TCK / (windowMs / 1000)) * 100;
}

async function idleCount(root: string, team: string): Promise<number> {
  try {
    const inbox = JSON.parse(await readFile(path.join(root, 'teams', team, 'inboxes', 'team-lead.json'), 'utf8')) as { text: string }[];
    return inbox.filter((m) => m.text.includes('"idle_notification"')).length;
  } catch {
    return 0;
  }
}

/** Poll (5 ms, a benchmark's resolution) until `cond` holds; throws after `ms`. */
async function until(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  if (!(await pollUntil(cond, ms, 5))) throw new Error(`bench: timed out waiting for ${what}`);
}

interface Env {
  root: string;
  socket: string;
  env: Record<string, string>;
}

async function withTeamEnv<T>(fn: (e: Env) => Promise<T>, extraEnv: Record<string, string> = {}): Promise<T> {
  const server = await startMessagesServer({ script: { turns: [{ match: {}, reply: 'Hello, team-lead. Waiting.' }], exhaustedReply: 'Still waiting.' } });
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-launch-'));
  const socket = `swarm-bench-${randomBytes(4).toString('hex')}`;
  const env: Record<string, string> = {
    CLAUDE_CONFIG_DIR: root,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'bench',
    SWARM_TMUX_SOCKET: socket,
    NO_COLOR: '1',
    TMUX: '',
    TMUX_PANE: '',
    ...extraEnv,
  };
  try {
    return await fn({ root, socket, env });
  } finally {
    // End the teammates first (their pane processes), and wait for them, before removing the root.
    const panes = await execa('tmux', ['-L', socket, 'list-panes', '-a', '-F', '#{pane_pid}'], { reject: false });
    const pids = String(panes.stdout).split('\n').map(Number).filter((n) => n > 0);
    await execa('tmux', ['-L', socket, 'kill-server'], { reject: false });
    await until(async () => pids.every((pid) => !isProcessAlive(pid)), 10_000, 'teammates to exit').catch(() => undefined);
    await rm(path.join(`/tmp/tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

async function launchOnce(members: number, extraEnv: Record<string, string>): Promise<{ ready: number; firstIdle: number; allIdle: number }> {
  return withTeamEnv(async ({ root, env }) => {
    const team = `bench-${randomBytes(3).toString('hex')}`;
    const file = path.join(root, 'team.yaml');
    await writeFile(file, teamYaml(team, members));
    const t0 = performance.now();
    const r = await execa(process.execPath, [SWARM, 'launch', file, '--no-console', '--backend', 'tmux'], { env, reject: false });
    const ready = performance.now() - t0;
    if (r.exitCode !== 0) throw new Error(`launch failed: ${String(r.stdout)}\n${String(r.stderr)}`);
    let firstIdle = NaN;
    await until(async () => {
      const n = await idleCount(root, team);
      if (n >= 1 && Number.isNaN(firstIdle)) firstIdle = performance.now() - t0;
      return n >= members;
    }, 30_000, 'idle notifications');
    return { ready, firstIdle, allIdle: performance.now() - t0 };
  }, extraEnv);
}

async function consoleCpu(members: number, windowMs: number): Promise<{ console: number; baseline: number }> {
  return withTeamEnv(async ({ root, socket, env }) => {
    const team = `bench-${randomBytes(3).toString('hex')}`;
    const file = path.join(root, 'team.yaml');
    await writeFile(file, teamYaml(team, members));
    const r = await execa(process.execPath, [SWARM, 'launch', file, '--no-console', '--backend', 'tmux'], { env, reject: false });
    if (r.exitCode !== 0) throw new Error(`launch failed: ${String(r.stdout)}\n${String(r.stderr)}`);
    await until(async () => (await idleCount(root, team)) >= members, 30_000, 'idle team');
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const pidOf = async (argv: string[]): Promise<number> => {
      const out = await execa('tmux', ['-L', socket, 'new-window', '-d', '-t', `swarm-${team}`, '-P', '-F', '#{pane_pid}', ...envArgs, '--', ...argv]);
      return Number(String(out.stdout).trim());
    };
    const consolePid = await pidOf([process.execPath, SWARM, 'lead', '--team', team]);
    const baselinePid = await pidOf([process.execPath, '-e', 'setInterval(() => {}, 1e6)']);
    // Let both finish starting before the idle window: the console's start (its first sweep, the
    // replay of the inbox) is not what it costs while idle. 2 s was too short to leave it out.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const [consolePct, baselinePct] = await Promise.all([cpuPercent(consolePid, windowMs), cpuPercent(baselinePid, windowMs)]);
    return { console: consolePct, baseline: baselinePct };
  });
}

export async function launchBench(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const runs = quick ? 1 : 3;
  const load = (): string => os.loadavg().map((l) => l.toFixed(2)).join(' ');
  process.stdout.write(`\nload average at start: ${load()}\n`);
  const results = VARIANTS.map(() => [] as { ready: number; firstIdle: number; allIdle: number }[]);
  // Variants interleaved, run by run: the machine's load drifts.
  for (let i = 0; i < runs; i++) {
    for (const [v, variant] of VARIANTS.entries()) {
      results[v]!.push(await launchOnce(4, variant.env));
      process.stderr.write('.');
    }
  }
  const rows = VARIANTS.flatMap((variant, v) => {
    const of = (pick: (r: { ready: number; firstIdle: number; allIdle: number }) => number) => summarize(results[v]!.map(pick));
    const [ready, first, all] = [of((r) => r.ready), of((r) => r.firstIdle), of((r) => r.allIdle)];
    return [
      [variant.label, 'all members ready (launch --no-console returns)', ready.p50, ready.max],
      [variant.label, 'first idle_notification in team-lead inbox', first.p50, first.max],
      [variant.label, 'all 4 idle', all.p50, all.max],
    ];
  });
  process.stdout.write(
    `\n### swarm launch of a 4-member team (swarm runtime, stand-in model, tmux), ${runs} runs each\n\n` +
      table(['teammate', 'milestone', 'median ms', 'max ms'], rows),
  );
  const windowMs = quick ? 3000 : 30_000;
  const cpu = await consoleCpu(8, windowMs);
  process.stdout.write(
    `\n### CPU while 8 teammates are idle (${windowMs / 1000} s window, % of one core)\n\n` +
      table(['process', 'CPU %'], [
        ['swarm lead (console)', cpu.console],
        ['baseline: bare idle node process', cpu.baseline],
      ]),
  );
  process.stdout.write(`\nload average at end: ${load()}\n`);
}
