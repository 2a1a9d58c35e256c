// Mailbox benchmark (issue 2): append throughput/latency under concurrent writer processes versus
// Claude Code's lock settings; delivery latency watcher vs 1000 ms polling; append/consume cost as an
// inbox grows to 10 000 messages with and without compaction.
import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { messageKey, type InboxMessage } from '../../src/protocol/message.js';
import { Transcript } from '../../src/runtime/transcript.js';
import { formatJson } from '../../src/storage/atomic.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { summarize, table } from './stats.js';
import { Team } from '../../src/team/team.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const APPEND = path.join(HERE, 'append-worker.mjs');
const FOLLOW = path.join(HERE, 'follow-worker.mjs');

async function freshTeam(): Promise<{ root: string; done: () => Promise<void> }> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-'));
  await createTeam(root, { name: 'bench' });
  await addMember(new Team(root, 'bench'), { name: 'sink' });
  return { root, done: () => rm(root, { recursive: true, force: true }) };
}

function waitLine(child: ResultPromise, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').includes(line)) resolve();
    });
    void child.then(() => reject(new Error(`child ended before "${line}"`)), reject);
  });
}

interface WriterOut {
  ok: number;
  failed: number;
  latencies: number[];
}

async function appendLevel(mode: 'swarm' | 'claude-code', writers: number, perWriter: number, warm = true) {
  const { root, done } = await freshTeam();
  try {
    const kids = Array.from({ length: writers }, (_, w) =>
      execa(process.execPath, [APPEND, mode, root, 'bench', 'sink', `w${w}`, String(perWriter)], {
        reject: false,
        stdin: 'pipe',
        env: { WARM: warm ? '1' : '0' },
      }),
    );
    // Start the clock only once every child has started node and loaded its modules: 64 node
    // start-ups take ~20 s of CPU on 2 cores, which is not what this measures.
    await Promise.all(kids.map((k) => waitLine(k, 'ready')));
    const t0 = performance.now();
    for (const k of kids) k.stdin?.write('go\n');
    const outs = (await Promise.all(kids)).map((r) => JSON.parse(String(r.stdout).trim().split('\n').pop()!) as WriterOut);
    const seconds = (performance.now() - t0) / 1000;
    const lat = summarize(outs.flatMap((o) => o.latencies));
    const failed = outs.reduce((a, o) => a + o.failed, 0);
    const okCount = outs.reduce((a, o) => a + o.ok, 0);
    let texts: string[] = [];
    try {
      texts = (JSON.parse(await readFile(path.join(root, 'teams/bench/inboxes/sink.json'), 'utf8')) as { text: string }[]).map((m) => m.text);
    } catch {
      texts = [];
    }
    const dup = texts.length - new Set(texts).size;
    const lost = okCount - new Set(texts).size; // reported written but not in the file
    return { mode: warm ? mode : `${mode}, cold start`, writers, attempted: writers * perWriter, failed, lost, dup, perSec: okCount / seconds, p50: lat.p50, p99: lat.p99 };
  } finally {
    await done();
  }
}

async function deliveryLatency(mode: 'watch' | 'poll', messages: number, gapMs: number) {
  const { root, done } = await freshTeam();
  try {
    const mailbox = new Mailbox({ team: new Team(root, 'bench') });
    const follower = execa(process.execPath, [FOLLOW, root, 'bench', 'sink', mode, mode === 'poll' ? '1000' : '1000', String(messages)], {
      reject: false,
    });
    const ready = waitLine(follower, 'ready');
    await mailbox.append('sink', { from: 'bench', text: `warm:${Date.now()}` });
    await ready;
    for (let i = 0; i < messages; i++) {
      await mailbox.append('sink', { from: 'bench', text: `m:${performance.timeOrigin + performance.now()}` });
      await new Promise((r) => setTimeout(r, gapMs * (0.5 + Math.random())));
    }
    const out = JSON.parse(String((await follower).stdout).trim().split('\n').pop()!) as { delays: number[] };
    const s = summarize(out.delays);
    return { mode: mode === 'watch' ? 'watcher (fs.watch on the directory)' : 'poll only, 1000 ms', n: s.n, p50: s.p50, p99: s.p99, max: s.max };
  } finally {
    await done();
  }
}

function entry(i: number, read: boolean) {
  return { from: 'bench', text: `filler message ${i} with a little text in it`, timestamp: new Date().toISOString(), read, type: 'message', msgV: 1, msg_id: `fill-${i}` };
}

async function growthCost(sizes: number[], samples: number) {
  const rows: (string | number)[][] = [];
  // Without compaction: prefill n read entries (the state after n messages flowed through), then time ops.
  for (const n of sizes) {
    const { root, done } = await freshTeam();
    try {
      const mailbox = new Mailbox({ team: new Team(root, 'bench'), compactThreshold: Number.POSITIVE_INFINITY });
      await writeFile(mailbox.paths.inbox('sink'), formatJson(Array.from({ length: n }, (_, i) => entry(i, true))));
      const a: number[] = [];
      const c: number[] = [];
      for (let k = 0; k < samples; k++) {
        let t = performance.now();
        await mailbox.append('sink', { from: 'bench', text: `x${k}` });
        a.push(performance.now() - t);
        t = performance.now();
        await mailbox.consume('sink');
        c.push(performance.now() - t);
      }
      rows.push(['no compaction', n, summarize(a).p50, summarize(c).p50]);
    } finally {
      await done();
    }
  }
  // With compaction (threshold 200): messages really flow through (append + consume each), timed at checkpoints.
  const { root, done } = await freshTeam();
  try {
    const mailbox = new Mailbox({ team: new Team(root, 'bench') });
    let flowed = 0;
    for (const n of sizes) {
      while (flowed < n - samples) {
        await mailbox.append('sink', { from: 'bench', text: `f${flowed}` });
        await mailbox.consume('sink');
        flowed++;
      }
      const a: number[] = [];
      const c: number[] = [];
      for (let k = 0; k < samples; k++, flowed++) {
        let t = performance.now();
        await mailbox.append('sink', { from: 'bench', text: `x${flowed}` });
        a.push(performance.now() - t);
        t = performance.now();
        await mailbox.consume('sink');
        c.push(performance.now() - t);
      }
      const inInbox = (await mailbox.read('sink')).length;
      const archived = (await mailbox.archived('sink')).length;
      rows.push([`compaction at 200 (inbox ${inInbox} + archive ${archived})`, n, summarize(a).p50, summarize(c).p50]);
    }
  } finally {
    await done();
  }
  return rows;
}

/**
 * A teammate's consume (runtime/inbox-delivery.ts): under the inbox lock, before the inbox says
 * read, it appends `inbox_taking` to its transcript and waits for it. Against the plain consume
 * (the baseline), alternated in the same run: one message appended, then consumed, `samples` times each.
 */
async function writeAheadCost(samples: number) {
  const { root, done } = await freshTeam();
  try {
    const mailbox = new Mailbox({ team: new Team(root, 'bench') });
    const transcript = new Transcript(path.join(root, 'sink.jsonl'));
    const writeAhead = async (taken: readonly InboxMessage[]) => {
      transcript.append({ kind: 'inbox_taking', msgKeys: taken.map(messageKey) });
      await transcript.flush();
    };
    const times = { plain: [] as number[], writeAhead: [] as number[] };
    for (let k = 0; k < samples; k++) {
      for (const mode of ['plain', 'writeAhead'] as const) {
        await mailbox.append('sink', { from: 'bench', text: `m${k}` });
        const t = performance.now();
        await mailbox.consume('sink', undefined, mode === 'writeAhead' ? writeAhead : undefined);
        times[mode].push(performance.now() - t);
      }
    }
    return (['plain', 'writeAhead'] as const).map((mode) => {
      const s = summarize(times[mode]);
      return [mode === 'plain' ? 'consume (the baseline)' : 'consume + inbox_taking written ahead', samples, s.p50, s.p99];
    });
  } finally {
    await done();
  }
}

export async function mailboxBench(): Promise<void> {
  const quick = process.env.BENCH_QUICK === '1';
  const perWriter = quick ? 10 : 25;
  const levels = process.env.BENCH_LEVELS ? process.env.BENCH_LEVELS.split(',').map(Number) : [1, 4, 16, 64, 128];
  const only = process.env.BENCH_ONLY; // appends | writeahead | delivery | growth
  const rows: (string | number)[][] = [];
  if (!only || only === 'appends') for (const w of levels) {
    for (const mode of ['swarm', 'claude-code'] as const) {
      const r = await appendLevel(mode, w, perWriter);
      rows.push([r.mode, r.writers, r.attempted, r.failed, r.lost, r.dup, r.perSec, r.p50, r.p99]);
      process.stderr.write('.');
    }
  }
  // The same at 64 writers with every send cold (no warm-up message): what a crowd of fresh processes sees.
  if ((!only || only === 'appends') && levels.includes(64)) for (const mode of ['swarm', 'claude-code'] as const) {
    const r = await appendLevel(mode, 64, perWriter, false);
    rows.push([r.mode, r.writers, r.attempted, r.failed, r.lost, r.dup, r.perSec, r.p50, r.p99]);
  }
  if (rows.length > 0) process.stdout.write(
    `\n### Concurrent appends (${perWriter} per writer process, one inbox; clock starts once every writer has loaded and sent one warm-up message to its own inbox)\n\n` +
      table(['settings', 'writers', 'attempted', 'failed', 'lost', 'duplicated', 'appends/s', 'p50 ms', 'p99 ms'], rows),
  );

  if (!only || only === 'writeahead') {
    const samples = quick ? 50 : 300;
    process.stdout.write(
      `\n### A teammate's consume, with its write-ahead transcript line (one message each, alternated)\n\n` +
        table(['consume', 'samples', 'p50 ms', 'p99 ms'], await writeAheadCost(samples)),
    );
  }
  if (only && only !== 'delivery' && only !== 'growth') return;
  const n = quick ? 30 : 100;
  if (!only || only === 'delivery') {
  const lat = [await deliveryLatency('watch', n, 30), await deliveryLatency('poll', quick ? 10 : 30, 60)];
  process.stdout.write(
    `\n### Delivery latency (append in one process -> seen by a follower process)\n\n` +
      table(['follower', 'messages', 'p50 ms', 'p99 ms', 'max ms'], lat.map((r) => [r.mode, r.n, r.p50, r.p99, r.max])),
  );

  }
  if (only === 'delivery') return;
  const sizes = quick ? [10, 100, 1000] : [10, 100, 1000, 10_000];
  const growth = await growthCost(sizes, quick ? 5 : 20);
  process.stdout.write(
    `\n### Cost per operation as an inbox grows (p50 of ${quick ? 5 : 20} samples)\n\n` +
      table(['inbox', 'messages so far', 'append ms', 'consume ms'], growth),
  );
}
