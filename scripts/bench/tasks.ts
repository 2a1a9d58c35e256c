// Task list benchmark (issue 14): claimer processes race over one list until every task is done,
// with swarm's TaskList versus Claude Code's claim (list lock with retries 30 x 5-100 ms, then the
// task lock) in the same run. Counts double claims (a task two claimers both won), claims lost to
// lock contention, claims per second, and the latency of a successful claim.
import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TaskSchema } from '../../src/protocol/task.js';
import { TaskList } from '../../src/tasks/index.js';
import { createTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { summarize, table } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLAIMER = path.join(HERE, 'claim-worker.mjs');

interface ClaimerOut {
  owner: string;
  won: string[];
  lockFailures: number;
  latencies: number[];
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

export async function claimRace(mode: 'swarm' | 'claude-code', claimers: number, tasks: number) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-tasks-'));
  try {
    await createTeam(root, { name: 'bench' });
    const team = new Team(root, 'bench');
    const list = new TaskList(team);
    for (let i = 0; i < tasks; i++) await list.create({ subject: `task ${i + 1}`, description: 'benchmark work' }, 'team-lead');
    const kids = Array.from({ length: claimers }, (_, c) => execa(process.execPath, [CLAIMER, mode, root, 'bench', `c${c}`], { reject: false, stdin: 'pipe' }));
    // The clock starts once every claimer has started node and loaded its modules.
    await Promise.all(kids.map((k) => waitLine(k, 'ready')));
    const t0 = performance.now();
    for (const k of kids) k.stdin?.write('go\n');
    const results = await Promise.all(kids);
    const seconds = (performance.now() - t0) / 1000;
    const outs = results.map((r) => {
      const last = String(r.stdout).trim().split('\n').pop() ?? '';
      if (!last.startsWith('{')) throw new Error(`claimer failed (exit ${r.exitCode}): ${String(r.stderr).slice(0, 500)}`);
      return JSON.parse(last) as ClaimerOut;
    });
    const winners = new Map<string, number>();
    for (const o of outs) for (const id of o.won) winners.set(id, (winners.get(id) ?? 0) + 1);
    const doubles = [...winners.values()].filter((n) => n > 1).length;
    let completed = 0;
    for (let i = 1; i <= tasks; i++) {
      try {
        if (TaskSchema.parse(JSON.parse(await readFile(team.paths.tasks.task(String(i)), 'utf8'))).status === 'completed') completed++;
      } catch {
        // unreadable: not completed
      }
    }
    const claims = outs.reduce((a, o) => a + o.won.length, 0);
    const lat = summarize(outs.flatMap((o) => o.latencies));
    return [
      mode === 'swarm' ? 'swarm (TaskList.claimNext)' : "Claude Code's claim (30 x 5-100 ms)",
      claimers,
      tasks,
      doubles,
      outs.reduce((a, o) => a + o.lockFailures, 0),
      `${completed}/${tasks}`,
      claims / seconds,
      lat.p50,
      lat.p99,
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

export async function tasksBench(): Promise<void> {
  const rows = [await claimRace('swarm', 64, 200), await claimRace('claude-code', 64, 200)];
  process.stdout.write(
    `\n### claim race: 64 claimer processes, each claiming the lowest open task and completing it until none is left\n\n` +
      table(['claimer', 'processes', 'tasks', 'double claims', 'claims failed (lock)', 'completed', 'claims/s', 'claim p50 ms', 'claim p99 ms'], rows),
  );
}
