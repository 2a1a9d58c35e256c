// Permission round-trip benchmark (issue 3): how long a worker is held up by a permission request,
// from calling requestPermission (request written: pending file, leader inbox frame, audit line)
// to the worker resuming with a verified decision. Three ways, in one run:
//  (a) an allow rule decides (no pending file);
//  (b) a second process (scripts/bench/decider.mjs) watches pending/ and calls decide() at once;
//      the worker waits with inotify + poll on resolved/ and its inbox;
//  (c) baseline: the same decider, but the worker only polls, every 500 ms (no watcher).
import { execa, type ResultPromise } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLeadKey } from '../../src/permissions/keys.js';
import { requestPermission, type RequestPermissionOptions } from '../../src/permissions/worker.js';
import { addMember, createTeam, updateTeam } from '../../src/team/team-store.js';
import { summarize, table } from './stats.js';
import { Team } from '../../src/team/team.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DECIDER = path.join(HERE, 'decider.mjs');
const TEAM = 'bench';

function waitLine(child: ResultPromise, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.split('\n').includes(line)) resolve();
    });
    void child.then(() => reject(new Error(`decider ended before "${line}": ${String(child.stderr ?? '')}`)), reject);
  });
}

interface Timing {
  /** requestPermission called -> returned. */
  total: number[];
  /** Request written (pending file, frame and audit line on disk) -> returned; empty for rules. */
  afterWrite: number[];
}

async function samples(n: number, opts: RequestPermissionOptions, expectSource: string[]): Promise<Timing> {
  const out: Timing = { total: [], afterWrite: [] };
  for (let i = 0; i < n; i++) {
    let written: number | undefined;
    const t0 = performance.now();
    const r = await requestPermission({ ...opts, toolUseId: `toolu_${i}`, onEvent: (e) => e.kind === 'requested' && (written = performance.now()) });
    const t1 = performance.now();
    out.total.push(t1 - t0);
    if (written !== undefined) out.afterWrite.push(t1 - written);
    if (r.decision !== 'allow' || !expectSource.includes(r.source)) throw new Error(`unexpected answer ${JSON.stringify(r)}`);
  }
  return out;
}

export async function permissionsBench(): Promise<void> {
  const n = process.env.BENCH_QUICK === '1' ? 15 : 50;
  const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-bench-perm-'));
  let decider: ResultPromise | undefined;
  try {
    await createTeam(root, { name: TEAM });
    await addMember(new Team(root, TEAM), { name: 'w1' });
    const key = await ensureLeadKey(new Team(root, TEAM));
    const base: RequestPermissionOptions = {
      team: new Team(root, TEAM),
      workerName: 'w1',
      toolName: 'Bash',
      toolUseId: 'toolu_0',
      input: { command: 'npm test' },
      description: 'Run the tests',
      cwd: root,
      verifyKey: key.verifyKey,
    };
    const rows: (string | number)[][] = [];
    const row = (name: string, t: Timing): void => {
      const s = summarize(t.total);
      const w = t.afterWrite.length > 0 ? summarize(t.afterWrite) : undefined;
      rows.push([name, s.n, s.p50, s.p99, s.max, w ? w.p50 : '-', w ? w.p99 : '-']);
      process.stderr.write('.');
    };

    await updateTeam(new Team(root, TEAM), (c) => void (c.swarm = { rules: { allow: ['Bash(npm test:*)'], deny: [] } }));
    await samples(3, base, ['rule']); // warm-up
    row('(a) allow rule', await samples(n, base, ['rule']));
    await updateTeam(new Team(root, TEAM), (c) => void (c.swarm = { rules: { allow: [], deny: [] } }));

    decider = execa(process.execPath, [DECIDER, root, TEAM], { reject: false });
    await waitLine(decider, 'ready');
    const watched = { ...base, pollMs: 1000 };
    await samples(3, watched, ['resolved', 'inbox']);
    row('(b) decider process, worker watches (inotify + 1 s poll)', await samples(n, watched, ['resolved', 'inbox']));
    const polled = { ...base, pollMs: 500, noWatch: true };
    row('(c) baseline: decider process, worker polls every 500 ms', await samples(n, polled, ['resolved', 'inbox']));

    process.stdout.write(
      `\n### Permission round trip (worker resumed with a verified decision)\n\n` +
        table(['decided by', 'samples', 'call->resumed p50 ms', 'p99 ms', 'max ms', 'written->resumed p50 ms', 'p99 ms'], rows) +
        '\n"call": requestPermission called (rules read, pending file + leader frame + audit line written, fsynced);\n' +
        '"written": those writes done. Target for (b): p50 < 20 ms, p99 < 150 ms.\n',
    );
  } finally {
    if (decider) {
      decider.kill('SIGTERM');
      await decider;
    }
    await rm(root, { recursive: true, force: true });
  }
}
