// Benchmark child: one claimer. Prints "ready", waits for "go" on stdin, then claims the lowest
// open task, marks it completed, and again, until none is left, either with swarm's TaskList
// (mode "swarm": claimNext, then update) or the way Claude Code 2.1.112 does it (mode
// "claude-code": the claim with its busy check — list lock with retries 30 x 5-100 ms, every task
// read under it, then the task's lock with the same budget and a plain fs.writeFile — and the
// update under the task lock). Prints one JSON line: the ids it won, the claims that failed because
// a lock could not be had, and the latency of each successful claim.
// argv: mode root team owner
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { TaskList } from '../../dist/tasks/index.js';
import { Team } from '../../dist/team/team.js';

const [mode, root, team, owner] = process.argv.slice(2);
const dir = path.join(root, 'tasks', team);
const CC_BUDGET = { retries: 30, minTimeout: 5, maxTimeout: 100 }; // Claude Code's h88
const list = new TaskList(new Team(root, team));

async function ccRead(id) {
  try {
    return JSON.parse(await readFile(path.join(dir, `${id}.json`), 'utf8'));
  } catch {
    return null; // Claude Code logs and skips a task it cannot read
  }
}

async function ccAll() {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json'));
  return (await Promise.all(names.map((n) => ccRead(n.replace('.json', ''))))).filter((t) => t !== null);
}

async function ccLocked(file, fn) {
  const release = await lockfile.lock(file, { retries: CC_BUDGET, onCompromised: () => undefined });
  try {
    return await fn();
  } finally {
    await release();
  }
}

async function ccUpdate(id, patch) {
  return ccLocked(path.join(dir, `${id}.json`), async () => {
    const t = await ccRead(id);
    if (!t) return null;
    const next = { ...t, ...patch, id };
    await writeFile(path.join(dir, `${id}.json`), JSON.stringify(next, null, 2));
    return next;
  });
}

/** Claude Code's claim with the busy check (pJz): 'won', or the refusal. Throws when a lock cannot be had. */
async function ccClaim(id) {
  return ccLocked(path.join(dir, '.lock'), async () => {
    const all = await ccAll();
    const t = all.find((x) => x.id === id);
    if (!t) return 'task_not_found';
    if (t.owner && t.owner !== owner) return 'already_claimed';
    if (t.status === 'completed') return 'already_resolved';
    const open = new Set(all.filter((x) => x.status !== 'completed').map((x) => x.id));
    if (t.blockedBy.some((b) => open.has(b))) return 'blocked';
    if (all.some((x) => x.status !== 'completed' && x.owner === owner && x.id !== id)) return 'agent_busy';
    await ccUpdate(id, { owner });
    return 'won';
  });
}

const won = [];
const latencies = [];
let lockFailures = 0;

async function claimOneSwarm() {
  const t0 = performance.now();
  let task;
  try {
    task = await list.claimNext(owner);
  } catch (e) {
    if (e?.kind === 'lock_timeout') {
      lockFailures++;
      return true;
    }
    throw e;
  }
  if (!task) return false;
  latencies.push(performance.now() - t0);
  won.push(task.id);
  try {
    await list.update(task.id, { status: 'completed' }, owner);
  } catch (e) {
    if (e?.kind !== 'lock_timeout') throw e;
    lockFailures++;
  }
  return true;
}

async function claimOneClaudeCode() {
  const candidates = (await ccAll())
    .filter((t) => t.status === 'pending' && !t.owner)
    .sort((a, b) => Number(a.id) - Number(b.id));
  if (candidates.length === 0) return false;
  for (const t of candidates) {
    const t0 = performance.now();
    let r;
    try {
      r = await ccClaim(t.id);
    } catch {
      lockFailures++;
      return true; // Claude Code reports the claim as failed; the teammate tries again later
    }
    if (r !== 'won') continue;
    latencies.push(performance.now() - t0);
    won.push(t.id);
    try {
      await ccUpdate(t.id, { status: 'completed' });
    } catch {
      lockFailures++;
    }
    return true;
  }
  return true;
}

// Warm the code paths on a read before the clock starts (64 cold starts on 2 cores are not what this measures).
await (mode === 'swarm' ? list.progress() : ccAll());
const go = new Promise((resolve) => process.stdin.once('data', resolve));
process.stdout.write('ready\n');
await go;
const claimOne = mode === 'swarm' ? claimOneSwarm : claimOneClaudeCode;
for (let idle = 0; idle < 3; ) idle = (await claimOne()) ? 0 : idle + 1;
process.stdout.write(`${JSON.stringify({ owner, won, lockFailures, latencies })}\n`);
process.stdin.destroy();
