// ssh backend benchmark (issue 19): time until 4 teammates are ready, and to stop them all
// (shutdownAll, verified), over ssh vs local tmux, with the bench's trivial teammate
// (test/support/fake-teammate.mjs through SWARM_TEAMMATE_COMMAND). The "remote" host is a private
// sshd on 127.0.0.1 (test/support/sshd-server.ts: its own keys, a free port), so the numbers are
// swarm's own ssh overhead (one shared connection per host, the tmux commands over it, the env file
// through its stdin, kills verified there) without network latency. Every ssh round makes a new
// backend, so it includes the shared-root proof (one ssh call); the first also opens the shared
// connection, which later rounds reuse (its socket is under the same root).
//
// Everything runs on private tmux servers (`tmux -L swarm-bench-<hex>`) and a private sshd, all
// killed afterwards (the sshd by its pid, its shared connections with `ssh -O exit`); the machine's
// sshd, ~/.ssh and the default tmux server are never touched. BENCH_ROUNDS=3 sets the rounds.
//
// Then send → seen latency: the leader appends to an inbox through the local root while a follower
// process reads it through the root itself, or through an sshfs mount of it (default options, then
// `-o cache=no`), as a teammate on another machine would (BENCH_MESSAGES=20 messages each).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { isProcessAlive } from '../../src/backends/process.js';
import { paneRefOf, selectBackend, type BackendChoice } from '../../src/backends/registry.js';
import { TmuxServer } from '../../src/backends/tmux/commands.js';
import { spawnTeammates, type SpawnOptions } from '../../src/teammates/spawn.js';
import { shutdownAll } from '../../src/teammates/stop.js';
import { execa } from 'execa';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { addMember, createTeam, readTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { SSH_TEST_HOST, mountSshfsAt, startSshdIn, unmountSshfs, type PrivateSshd } from '../../test/support/sshd-server.js';
import { summarize, table } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FAKE = path.join(HERE, '../../test/support/fake-teammate.mjs');
const FOLLOW = path.join(HERE, 'follow-worker.mjs');
const TEAM = 'bench';
const N = 4;

async function reap(socket: string): Promise<void> {
  if (!socket.startsWith('swarm-bench-')) throw new Error(`refusing to kill tmux socket ${socket}`);
  const server = new TmuxServer({ socket });
  const where = await server.tryRun(['display-message', '-p', '#{socket_path}']);
  await server.tryRun(['kill-server']);
  const files = [path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, socket), where.stdout.trim()];
  for (const f of files) if (f !== '') await rm(f, { force: true });
}

interface Round {
  readyMs: number;
  probeMs: number;
  stopMs: number;
  verified: boolean;
  failed: string[];
}

/** One round: a fresh root, team and private tmux server; N teammates with spawnTeammates, then shutdownAll. */
async function round(kind: 'tmux' | 'ssh', sshd: PrivateSshd, root: string): Promise<Round> {
  const socket = `swarm-bench-${randomBytes(6).toString('hex')}`;
  const pids = new Set<number>();
  const team = new Team(root, `${TEAM}-${randomBytes(3).toString('hex')}`);
  try {
    await createTeam(root, { name: team.name, cwd: root });
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? root,
      CLAUDE_CONFIG_DIR: root,
      SWARM_TMUX_SOCKET: socket,
      SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE]),
      SWARM_SSH_COMMAND: sshd.sshCommand,
    };
    const requested: BackendChoice = kind;
    const { backend } = await selectBackend({ requested, env, team, killTimeoutMs: 3000, ...(kind === 'ssh' ? { host: SSH_TEST_HOST } : {}) });
    const list: SpawnOptions[] = Array.from({ length: N }, (_, i) => ({ team, name: `w${i + 1}`, prompt: 'hello', cwd: root, backend, env, readyTimeoutMs: 30_000 }));
    const failed: string[] = [];
    const t0 = performance.now();
    for (const r of await spawnTeammates(list)) {
      if (r.ok && r.teammate.pid !== undefined) pids.add(r.teammate.pid);
      if (!r.ok) failed.push(`${r.name}: ${r.error.message.split('\n')[0]}`);
    }
    const readyMs = performance.now() - t0;
    // What status asks per refresh: one probe of every pane (over ssh: one tmux list-panes there).
    const refs = (await readTeam(team)).members.filter((m) => m.name !== 'team-lead').map(paneRefOf);
    const probes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await backend.probe(refs);
      probes.push(performance.now() - t);
    }
    const probeMs = summarize(probes).p50;
    const t1 = performance.now();
    const outcomes = await shutdownAll(team, { env, timeoutMs: 10_000, force: true, exitGraceMs: 3000, killTimeoutMs: 3000 });
    const stopMs = performance.now() - t1;
    const left = (await readTeam(team)).members.filter((m) => m.name !== 'team-lead').length;
    // The "remote" host is this machine: its processes can be checked here too.
    const verified = outcomes.every((o) => o.verified) && left === 0 && ![...pids].some(isProcessAlive) && pids.size === N;
    return { readyMs, probeMs, stopMs, verified, failed };
  } finally {
    await reap(socket);
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  }
}

/**
 * Send → seen through an sshfs-mounted root: the leader appends to `sink`'s inbox through the local
 * root; a follower process (scripts/bench/follow-worker.mjs, the watcher: inotify + 1 s poll) reads
 * it through `followRoot` (the root itself, or its sshfs mount, as a remote teammate would).
 */
async function delivery(root: string, followRoot: string, messages: number): Promise<{ n: number; p50: number; p99: number; max: number }> {
  const team = `dl-${randomBytes(3).toString('hex')}`;
  await createTeam(root, { name: team });
  await addMember(new Team(root, team), { name: 'sink' });
  const mailbox = new Mailbox({ team: new Team(root, team) });
  const follower = execa(process.execPath, [FOLLOW, followRoot, team, 'sink', 'watch', '1000', String(messages)], { reject: false, timeout: 120_000 });
  const ready = new Promise<void>((resolve, reject) => {
    let buf = '';
    follower.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').includes('ready')) resolve();
    });
    void follower.then(() => reject(new Error('the follower ended before it was ready')), reject);
  });
  await mailbox.append('sink', { from: 'bench', text: `warm:${Date.now()}` });
  await ready;
  for (let i = 0; i < messages; i++) {
    await mailbox.append('sink', { from: 'bench', text: `m:${performance.timeOrigin + performance.now()}` });
    await new Promise((r) => setTimeout(r, 200 * (0.5 + Math.random())));
  }
  const out = JSON.parse(String((await follower).stdout).trim().split('\n').pop()!) as { delays: number[] };
  const s = summarize(out.delays);
  return { n: s.n, p50: s.p50, p99: s.p99, max: s.max };
}

export async function sshBench(): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-sshd-'));
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-ssh-'));
  const sshd = await startSshdIn(dir);
  const rows: (string | number)[][] = [];
  const latency: (string | number)[][] = [];
  const notes: string[] = [];
  process.stdout.write(`\nload average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; sshd on 127.0.0.1:${sshd.port}; N = ${N}, ${rounds} rounds each\n`);
  try {
    await round('tmux', sshd, root); // warm-up (module loading, JIT), not reported
    for (let i = 1; i <= rounds; i++) {
      for (const kind of ['tmux', 'ssh'] as const) {
        const r = await round(kind, sshd, root);
        const label = kind === 'tmux' ? 'local tmux' : i === 1 ? 'ssh (first round: opens the shared connection)' : 'ssh (shared connection reused)';
        rows.push([label, i, r.readyMs, r.readyMs / N, r.probeMs, r.stopMs, r.verified ? 'yes' : 'NO']);
        for (const f of r.failed) notes.push(`${label}, round ${i}: ${f}`);
        process.stderr.write('.');
      }
    }
    const messages = Number(process.env.BENCH_MESSAGES ?? 20);
    const local = await delivery(root, root, messages);
    latency.push(['locally (the same path)', local.n, local.p50, local.p99, local.max]);
    for (const opts of [[], ['-o', 'cache=no']]) {
      const mount = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-sshfs-'));
      const why = await mountSshfsAt(sshd.config, root, mount, opts);
      try {
        if (why !== undefined) {
          notes.push(`sshfs ${opts.join(' ')}: not measured: ${why}`);
          continue;
        }
        const r = await delivery(root, mount, messages);
        latency.push([`through sshfs${opts.length > 0 ? ` ${opts.join(' ')}` : ' (default options)'}`, r.n, r.p50, r.p99, r.max]);
      } finally {
        if (why === undefined) await unmountSshfs(mount);
        await rm(mount, { recursive: true, force: true });
      }
    }
  } finally {
    await sshd.closeMastersUnder(root);
    await sshd.stop();
    await rm(root, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    `\n### Send → seen (leader appends through the local root; a follower reads it through the path given)\n\n` +
      table(['follower reads the root', 'messages', 'p50 ms', 'p99 ms', 'max ms'], latency),
  );
  process.stdout.write(
    `\n### ${N} teammates until ready (spawnTeammates), and stop-all (shutdownAll, verified): ssh vs local tmux\n\n` +
      table(['what', 'round', 'ready ms', 'ms / teammate', `probe ${N} panes ms (p50 of 10)`, 'stop-all ms', 'stop verified'], rows),
  );
  for (const note of notes) process.stdout.write(`- ${note}\n`);
  process.stdout.write(`\nload average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}\n`);
}
