// A lock holder that stalls inside its critical section (Ctrl-Z, SIGSTOP, swap, a slow fsync) must
// not lose the messages other writers appended meanwhile (issue 11 item 1). Real processes on a real
// inbox file: a stalling holder (test/support/stall-holder.mjs), senders (append-worker.mjs), and a
// second holder (lock-holder.mjs) to show a stalled holder never releases a lock that is not its own.
import { execa, type ResultPromise } from 'execa';
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { lockPathFor, queueDirFor } from '../../src/storage/lock.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { REPO } from '../support/cli.js';
import { useTempRoot } from '../support/tmp-root.js';
import { printedLine } from '../support/child-lines.js';
import { waitFor } from '../support/wait.js';
import { endAfterThisTest } from '../support/children.js';

const STALLER = path.join(REPO, 'test/support/stall-holder.mjs');
const SENDER = path.join(REPO, 'test/support/append-worker.mjs');
const HOLDER = path.join(REPO, 'test/support/lock-holder.mjs');

let root: string;
let file: string;

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: 'stall' });
  await addMember(new Team(root, 'stall'), { name: 'sink' });
  file = path.join(root, 'teams/stall/inboxes/sink.json');
  await mkdir(path.dirname(file), { recursive: true });
});

function start(script: string, args: string[]): ResultPromise {
  const child = execa(process.execPath, [script, ...args], { reject: false });
  endAfterThisTest(child);
  return child;
}

async function texts(): Promise<string[]> {
  return (JSON.parse(await readFile(file, 'utf8')) as { text: string }[]).map((m) => m.text);
}

async function sendThree(staleMs?: string): Promise<void> {
  const senders = ['a', 'b', 'c'].map((w) => start(SENDER, [root, 'stall', 'sink', w, '1', '60000', ...(staleMs ? [staleMs] : [])]));
  const reports = (await Promise.all(senders)).map((r) => JSON.parse(String(r.stdout).trim()) as { ok: number; failed: number });
  expect(reports.map((r) => [r.ok, r.failed])).toEqual([
    [1, 0],
    [1, 0],
    [1, 0],
  ]); // every sender was told "sent"
}

async function identity(p: string): Promise<string> {
  const st = await stat(p);
  return `${st.ino}:${st.birthtimeMs}`;
}

describe('a lock holder that stalls inside its critical section', () => {
  it('stalls 5 s (past the old 4 s stale window) with default settings: the senders wait, all four messages are kept', async () => {
    const staller = start(STALLER, [file, 'stalled', '5000']);
    await printedLine(staller, 'locked');
    await sendThree();
    expect(JSON.parse(String((await staller).stdout).split('\n')[1]!)).toEqual({ attempts: 1 });
    expect((await texts()).sort()).toEqual(['a:0', 'b:0', 'c:0', 'stalled']);
  }, 30_000);

  it('stopped past the stale window (SIGSTOP): the lock is taken over, its stale copy is discarded and its cycle re-run, nothing lost', async () => {
    const staller = start(STALLER, [file, 'stalled', '300', '2000']);
    await printedLine(staller, 'locked');
    staller.kill('SIGSTOP');
    await sendThree('2000'); // they take the "stale" lock while the staller is stopped, and report success
    staller.kill('SIGCONT');
    const { stdout } = await staller;
    expect(JSON.parse(String(stdout).split('\n')[1]!)).toEqual({ attempts: 2 }); // fenced: the first cycle was thrown away
    const all = await texts();
    expect(all.slice(0, 3).sort()).toEqual(['a:0', 'b:0', 'c:0']);
    expect(all.slice(3)).toEqual(['stalled']);
  }, 30_000);

  it('SIGSTOPped while holding: it never removes the lock of the writer that took over, and its message lands once', async () => {
    const staller = start(STALLER, [file, 'stalled', '300', '2000']);
    await printedLine(staller, 'locked');
    staller.kill('SIGSTOP');
    const holder = start(HOLDER, [file, '2000']); // takes the lock once it looks stale
    await printedLine(holder, 'locked');
    const holders = await identity(lockPathFor(file));
    staller.kill('SIGCONT');
    // The staller finds its lock lost, releases (which must leave the holder's lock alone) and queues again.
    await waitFor(async () => (await readdir(queueDirFor(file)).catch(() => [])).length > 0, 10_000, 'the staller to queue again');
    expect(await identity(lockPathFor(file))).toBe(holders);
    holder.kill('SIGKILL');
    const { stdout } = await staller; // takes the dead holder's lock after the stale window
    expect(JSON.parse(String(stdout).split('\n')[1]!)).toEqual({ attempts: 2 });
    expect(await texts()).toEqual(['stalled']);
  }, 30_000);
});
