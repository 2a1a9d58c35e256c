// Agent lead benchmark (issue 15 item 8): the lead loop's overhead per teammate message. The lead
// runs in process through the pieces `swarm run -p` uses (cli/run/headless.ts): followInbox on
// team-lead's inbox (consume) feeding a LeadQueue, and runLead against the stand-in Messages API,
// whose every reply ends the turn at once. Each round, 8 teammates report at once (8 appends to
// team-lead's inbox, in process, concurrently); per message, the time from its append returning
// (the entry is on disk) to the stand-in receiving the first lead request that carries it (one
// clock: performance.now()). The lead is idle (waiting on its queue) before each round starts.
// Baseline, same run: the same path with the inbox followed by polling only, every 1000 ms
// (followInbox noWatch + pollMs 1000; the default is inotify plus a 1000 ms poll).
// Target: p50 < 50 ms.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { followInbox, type FollowOptions } from '../../src/mailbox/follow.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { ensureLeadKey } from '../../src/permissions/keys.js';
import { LEAD_NAME } from '../../src/protocol/names.js';
import { runLead } from '../../src/runtime/lead/lead.js';
import { LeadQueue } from '../../src/runtime/lead/queue.js';
import { lastUserText } from '../../src/standin/request.js';
import { startMessagesServer, type RecordedRequest } from '../../src/standin/messages-server.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { summarize, table } from './stats.js';

const WRITERS = 8;

/** The lead's queue, telling when the lead waits on it (idle: its turn is over, nothing queued). */
class WatchedQueue extends LeadQueue {
  private idle: (() => void) | undefined;
  waiting = false;

  override changed(signal: AbortSignal): Promise<void> {
    this.waiting = true;
    this.idle?.();
    this.idle = undefined;
    return super.changed(signal).finally(() => (this.waiting = false));
  }

  /** Resolves once the lead waits on the queue. */
  untilIdle(): Promise<void> {
    return this.waiting ? Promise.resolve() : new Promise((resolve) => (this.idle = resolve));
  }
}

interface Row {
  mode: string;
  samples: number[];
  /** Append returned -> the entry offered to the lead's queue. */
  heard: number[];
  /** Offered -> the request carrying it. */
  toModel: number[];
  requests: number;
  rounds: number;
}

async function leadLatency(mode: string, follow: FollowOptions, rounds: number): Promise<Row> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-lead-'));
  const stop = new AbortController();
  const server = await startMessagesServer({
    script: { turns: [{ match: { agent: LEAD_NAME }, reply: 'Noted.' }], exhaustedReply: 'Noted.' },
    now: () => performance.now(),
  });
  try {
    const { team } = await createTeam(root, { name: 'bench', cwd: root });
    const names = Array.from({ length: WRITERS }, (_, i) => `w${i}`);
    for (const name of names) await addMember(team, { name, cwd: root });
    await ensureLeadKey(team);
    const mailbox = new Mailbox({ team });
    const queue = new WatchedQueue();
    const heardAt = new Map<string, number>();
    // As headless.ts: this process is team-lead's inbox consumer and offers each entry to the lead.
    const reader = (async () => {
      for await (const m of followInbox(mailbox, LEAD_NAME, { ...follow, consume: true, signal: stop.signal })) {
        heardAt.set(m.text, performance.now());
        queue.offer(m);
      }
    })();
    const lead = runLead({
      team,
      goal: 'Wait for your teammates and note what they say.',
      queue,
      model: 'claude-sonnet-4-5',
      cwd: root,
      limits: { maxTeammates: WRITERS },
      spawn: () => Promise.reject(new Error('no spawning in this bench')),
      stop: () => Promise.reject(new Error('no stopping in this bench')),
      stopAll: () => Promise.resolve([]),
      kill: () => Promise.reject(new Error('no stopping in this bench')),
      onLimit: () => Promise.resolve('stop'),
      onFinished: () => false, // as the console: the lead waits for the next message
      env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-bench', HOME: root, CLAUDE_CONFIG_DIR: root, SWARM_RETRY_BASE_MS: '10' },
      write: () => undefined,
      signal: stop.signal,
    });
    await queue.untilIdle(); // the goal's turn is over
    const samples: number[] = [];
    const heard: number[] = [];
    const toModel: number[] = [];
    const firstSeen = (token: string, from: number): RecordedRequest | undefined =>
      server.requests.slice(from).find((q) => q.agent === LEAD_NAME && q.body !== undefined && lastUserText(q.body).includes(token));
    const before = server.requests.length;
    for (let r = 0; r < rounds; r++) {
      const start = server.requests.length;
      const appended = await Promise.all(
        names.map(async (name) => {
          const token = `report r${r} ${name}`;
          await mailbox.append(LEAD_NAME, { from: name, text: `${token}: done` });
          return { token, at: performance.now() };
        }),
      );
      // Every report heard, and the lead idle again before the next round.
      while (!appended.every((a) => firstSeen(a.token, start) !== undefined)) await server.waitForRequests(server.requests.length + 1, 10_000);
      await queue.untilIdle();
      for (const a of appended) {
        const seen = firstSeen(a.token, start)!.receivedAt;
        samples.push(seen - a.at);
        heard.push((heardAt.get(`${a.token}: done`) ?? NaN) - a.at);
        toModel.push(seen - (heardAt.get(`${a.token}: done`) ?? NaN));
      }
    }
    const requests = server.requests.length - before;
    stop.abort();
    await Promise.allSettled([reader, lead]);
    return { mode, samples, heard, toModel, requests, rounds };
  } finally {
    stop.abort();
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

export async function leadBench(): Promise<void> {
  const rounds = process.env.BENCH_QUICK === '1' ? 5 : 25;
  const rows = [
    await leadLatency('inbox watched (inotify + 1000 ms poll, as swarm run)', {}, rounds),
    await leadLatency('baseline: poll only, 1000 ms', { noWatch: true, pollMs: 1000 }, rounds),
  ];
  process.stdout.write(
    `\n### Lead loop overhead per teammate message: ${WRITERS} teammates report at once (in-process appends to team-lead's inbox), ${rounds} rounds; append returned -> the lead's next Messages API request carrying it (ms)\n\n` +
      table(
        ['inbox followed by', 'messages', 'lead requests per round', 'p50 ms', 'p99 ms', 'max ms', 'append->heard p50', 'heard->request p50'],
        rows.map((r) => {
          const s = summarize(r.samples);
          return [r.mode, s.n, r.requests / r.rounds, s.p50, s.p99, s.max, summarize(r.heard).p50, summarize(r.toModel).p50];
        }),
      ),
  );
}
