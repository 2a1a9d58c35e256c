// Benchmark child: sends one warm-up message to another inbox (unless WARM=0), prints "ready",
// waits for "go" on stdin, then appends `count` messages to one inbox, either with
// swarm's Mailbox (mode "swarm") or the way Claude Code does it (mode "claude-code": proper-lockfile
// with 10 retries of 5-100 ms, plain non-atomic fs.writeFile). Prints one JSON line with latencies.
// argv: mode root team to writer count
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { Mailbox } from '../../dist/mailbox/mailbox.js';
import { Team } from '../../dist/team/team.js';

const [mode, root, team, to, writer, countArg] = process.argv.slice(2);
const count = Number(countArg);
const inboxes = path.join(root, 'teams', team, 'inboxes');
const mailbox = new Mailbox({ team: new Team(root, team) });

async function claudeCodeAppend(entry, file = path.join(inboxes, `${to}.json`)) {
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(file, '[]', { flag: 'wx' });
  } catch {}
  const release = await lockfile.lock(file, {
    lockfilePath: `${file}.lock`,
    retries: { retries: 10, minTimeout: 5, maxTimeout: 100 },
    onCompromised: () => undefined,
  });
  try {
    let arr = [];
    try {
      arr = JSON.parse(await readFile(file, 'utf8'));
    } catch {}
    arr.push(entry);
    await writeFile(file, JSON.stringify(arr, null, 2));
  } finally {
    await release();
  }
}

// A process's first send (to its own warm-up inbox, so no contention) runs cold code (~16 ms of CPU, mostly JIT): without this the clock would
// measure 64 simultaneous warm-ups on 2 cores, not lock contention. WARM=0 keeps them in.
if (process.env.WARM !== '0') {
  const warm = { from: writer, text: 'warm-up' };
  if (mode === 'swarm') await mailbox.append(`warm-up-${writer}`, warm);
  else await claudeCodeAppend({ ...warm, timestamp: new Date().toISOString(), read: false }, path.join(inboxes, `warm-up-${writer}.json`));
}
const go = new Promise((resolve) => process.stdin.once('data', resolve));
process.stdout.write('ready\n');
await go;
const latencies = [];
let failed = 0;
for (let i = 0; i < count; i++) {
  const text = `${writer}:${i}`;
  const t0 = performance.now();
  try {
    if (mode === 'swarm') await mailbox.append(to, { from: writer, text });
    else await claudeCodeAppend({ from: writer, text, timestamp: new Date().toISOString(), read: false });
    latencies.push(performance.now() - t0);
  } catch {
    failed++;
  }
}
process.stdout.write(`${JSON.stringify({ writer, ok: latencies.length, failed, latencies })}\n`);
process.stdin.destroy();
