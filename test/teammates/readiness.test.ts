// The readiness handshake in process (teammates/readiness.ts; the mutation run's tests of it, with
// spawn-guards, resume-guards and start-failure): a real team's inbox and status files, a pane
// backend whose liveness the test sets (support/stand-in-panes.ts, settablePanes). Ready only when
// the prompt is taken and, for the swarm runtime, a status file names a live pid (any pid for panes
// on another machine); a claude teammate continuing its session once its transcript grows; each way
// of not being ready in one line that says which; and how a failed start's pane is abandoned and
// described.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend, PaneOutput, PaneRef } from '../../src/backends/backend.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { SwarmError } from '../../src/protocol/errors.js';
import type { Team } from '../../src/team/team.js';
import { abandonPane, awaitReadiness, describeExit, fileSize, startFailure, type ReadinessOptions } from '../../src/teammates/readiness.js';
import { deadPid, startSleeper, writeStatus } from '../support/team-fixture.js';
import { settablePanes, useStandInTeam, type SettablePanes } from '../support/stand-in-panes.js';
import { tempRoot } from '../support/tmp-root.js';

let root: string;
let team: Team;
let cwd: string;
useStandInTeam('swarm-readiness-', (s) => ({ root, team, cwd } = s));

const PANE: PaneRef = { paneId: '%1', backendType: 'tmux' };

/** A pane backend whose pane PANE lives until the test removes it (`extra` replaces any method). */
function panes(extra: Partial<Backend> = {}): SettablePanes {
  const p = settablePanes(extra);
  p.alive.add(PANE.paneId);
  return p;
}

let mailbox: Mailbox;
let msgId: string;
beforeEach(async () => {
  mailbox = new Mailbox({ team });
  msgId = (await mailbox.append('w1', { from: 'team-lead', text: 'write the report' })).msg_id!;
});

function options(backend: Backend, extra: Partial<ReadinessOptions> = {}): ReadinessOptions {
  return { team, backend, env: {}, mailbox, name: 'w1', msgId, pane: PANE, runtime: 'swarm', cwd, readyTimeoutMs: 1000, ...extra };
}

/** The SwarmError awaitReadiness ends with, as `kind: message`. */
async function refusal(o: ReadinessOptions): Promise<string> {
  const e = await awaitReadiness(o).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof SwarmError)) throw new Error(`expected a SwarmError, got ${String(e)}`);
  return `${e.kind}: ${e.message}`;
}

describe('awaitReadiness: a swarm teammate', () => {
  it('is ready once it has taken its prompt and its status file names a live pid, whichever comes last', async () => {
    const ready = awaitReadiness(options(panes().backend, { readyTimeoutMs: 10_000 }));
    await writeStatus(root, 't', 'w1', { pid: await startSleeper() });
    await new Promise((r) => setTimeout(r, 300));
    let settled = false;
    void ready.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false); // the prompt is still unread
    await mailbox.consume('w1');
    await ready;
  });

  it('is not ready on a status file whose pid is dead, or one that does not parse, and says what it did not do', async () => {
    await mailbox.consume('w1');
    await writeStatus(root, 't', 'w1', { pid: await deadPid() });
    expect(await refusal(options(panes().backend))).toBe('backend: w1 was not ready within 1 s (it did not pick up its prompt and write its status file)');
    await fs.writeFile(team.paths.status('w1'), '{"name":"w1","pid":');
    expect(await refusal(options(panes().backend))).toContain('w1 was not ready within 1 s');
  });

  it('on panes of another machine, a status file is enough whatever its pid says here', async () => {
    await mailbox.consume('w1');
    await writeStatus(root, 't', 'w1', { pid: await deadPid() });
    await awaitReadiness(options({ ...panes().backend, remoteProcesses: true }));
  });

  it('resumed (no prompt to take), it is ready on its status file alone', async () => {
    await writeStatus(root, 't', 'w1', { pid: await startSleeper() });
    await awaitReadiness(options(panes().backend, { msgId: '' }));
  });

  it('a prompt removed from the inbox counts as taken', async () => {
    await mailbox.consume('w1');
    await writeStatus(root, 't', 'w1', { pid: await startSleeper() });
    await fs.writeFile(team.paths.inbox('w1'), '[]');
    await awaitReadiness(options(panes().backend));
  });

  it('having taken its prompt, it is not ready without a status file', async () => {
    await mailbox.consume('w1');
    expect(await refusal(options(panes().backend))).toBe('backend: w1 was not ready within 1 s (it did not pick up its prompt and write its status file)');
  });

  it('a pane that died: said at once, not at the deadline', async () => {
    const { backend, alive } = panes();
    alive.delete(PANE.paneId);
    const started = Date.now();
    expect(await refusal(options(backend, { readyTimeoutMs: 10_000 }))).toBe('backend: w1 exited before it was ready');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('asks the backend whether the pane lives at most every 400 ms, however often the team files change', async () => {
    const { backend, asked } = panes();
    let writing = Promise.resolve(); // one write after another, all awaited before the root goes
    const writes = setInterval(() => {
      writing = writing.then(() => writeStatus(root, 't', 'w2', { pid: process.pid }));
    }, 20);
    try {
      await refusal(options(backend, { readyTimeoutMs: 1200 }));
    } finally {
      clearInterval(writes);
      await writing;
    }
    expect(asked()).toBeGreaterThanOrEqual(2);
    expect(asked()).toBeLessThanOrEqual(4);
  });

  it('interrupted: its own error, not a timeout', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    expect(await refusal(options(panes().backend, { readyTimeoutMs: 10_000, signal: stop.signal }))).toBe('interrupted: interrupted before w1 was ready');
  });
});

describe('awaitReadiness: a claude teammate', () => {
  it('needs no status file: taking its prompt is enough, and not taking it is said without one', async () => {
    expect(await refusal(options(panes().backend, { runtime: 'claude' }))).toBe('backend: w1 was not ready within 1 s (it did not pick up its prompt)');
    await mailbox.consume('w1');
    await awaitReadiness(options(panes().backend, { runtime: 'claude' }));
  });

  it('continuing its session: ready once the transcript is longer than it was, and named when it is not', async () => {
    const transcript = path.join(await tempRoot(), 'session.jsonl');
    await fs.writeFile(transcript, '{"type":"user"}\n');
    const session = { transcript, size: (await fs.stat(transcript)).size };
    expect(await refusal(options(panes().backend, { runtime: 'claude', msgId: '', session }))).toBe(
      `backend: w1 was not ready within 1 s (it did not take up its Claude Code session ${transcript})`,
    );
    const ready = awaitReadiness(options(panes().backend, { runtime: 'claude', msgId: '', session, readyTimeoutMs: 10_000 }));
    await fs.appendFile(transcript, '{"type":"system"}\n');
    await ready;
  });
});

describe('awaitReadiness: a claude teammate on a first-run dialog', () => {
  const TRUST = [' Quick safety check: Is this a project you created or one you trust?', ' ❯ 1. Yes, I trust this folder', '   2. No, exit'];

  it('is told of through onNotice, and the wait ends naming the dialog nobody answered', async () => {
    const notices: string[] = [];
    const { backend } = panes({ capture: async () => ({ lines: TRUST }) });
    const o = options(backend, { runtime: 'claude', readyTimeoutMs: 600, dialogTimeoutMs: 1500, onNotice: (t) => notices.push(t) });
    const started = Date.now();
    expect(await refusal(o)).toBe(
      "backend: w1 was still waiting on Claude Code's folder trust dialog (\"Is this a project you created or one you trust?\"): nobody answered it in time (answer it in its pane, or seed Claude Code's state file as the notice said)",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400); // the dialog's wait, not the ready timeout
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain("w1 is waiting on Claude Code's folder trust dialog");
  });

  it('a swarm teammate\'s screen is never read for dialogs', async () => {
    let reads = 0;
    const { backend } = panes({ capture: async () => (reads++, { lines: TRUST }) });
    expect(await refusal(options(backend))).toContain('w1 was not ready within 1 s');
    expect(reads).toBe(0);
  });
});

describe('fileSize', () => {
  it('is -1 for a file that is not there', async () => {
    const dir = await tempRoot();
    await fs.writeFile(path.join(dir, 'f'), 'abc');
    expect([await fileSize(path.join(dir, 'f')), await fileSize(path.join(dir, 'missing'))]).toEqual([3, -1]);
  });
});

describe('describeExit', () => {
  it('names an exit status, a signal by name, and a signal without one by number', () => {
    expect([describeExit({ code: 3 }), describeExit({ signal: 15 }), describeExit({ signal: 999 })]).toEqual(['exit status 3', 'killed by SIGTERM', 'killed by signal 999']);
  });
});

describe('abandonPane', () => {
  it('no pane: nothing to capture or kill', async () => {
    let calls = 0;
    const { backend } = panes({ capture: async () => (calls++, { lines: ['x'] }), kill: async () => void calls++ });
    expect(await abandonPane(backend, undefined, [])).toEqual({ lines: [] });
    expect(calls).toBe(0);
  });

  it('a pane that cannot be captured or killed: no lines, and the kill is a problem said', async () => {
    const problems: string[] = [];
    const { backend } = panes({ capture: () => Promise.reject(new Error('no server')), kill: () => Promise.reject(new Error('no such pane')) });
    expect(await abandonPane(backend, PANE, problems)).toEqual({ lines: [] });
    expect(problems).toEqual(['the pane could not be killed: Error: no such pane']);
  });

  it('a pane whose process still runs: its stderr log is left for startFailure, not read before the kill', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, 'boom\n');
    const running: PaneOutput = { lines: ['starting w1'] };
    expect(await abandonPane(panes({ capture: async () => running }).backend, PANE, [], log)).toEqual(running);
    const ended = await abandonPane(panes({ capture: async () => ({ lines: ['starting w1'], exit: { code: 1 } }) }).backend, PANE, [], log);
    expect(ended.stderr).toBe('boom\n');
  });
});

describe('startFailure: the rest of its wording', () => {
  it('no pane output: the stderr log itself, its last 15 lines; neither: the first line alone', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`);
    const e = await startFailure('spawn of w1 failed', log, { lines: [] }, [], new Error('w1 exited before it was ready'), 100);
    expect(e.message.split('\n')).toEqual(['spawn of w1 failed: w1 exited before it was ready', `its stderr (${log}):`, ...Array.from({ length: 15 }, (_, i) => `  line ${i + 6}`)]);
    await fs.writeFile(log, '');
    const bare = await startFailure('spawn of w1 failed', log, { lines: [] }, [], new Error('w1 exited before it was ready'), 100);
    expect(bare.message).toBe('spawn of w1 failed: w1 exited before it was ready');
  });

  it("keeps the cause's kind and first line, adds each problem after a semicolon, and takes a cause that is not an Error", async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, '');
    const cause = new SwarmError('interrupted', 'interrupted before w1 was ready\nsecond line');
    const e = await startFailure('resume of w1 failed', log, { lines: [], exit: { signal: 9 } }, ['the pane could not be killed: gone', 'its inbox is kept'], cause, 100);
    expect([e.kind, e.message, e.cause]).toEqual(['interrupted', 'resume of w1 failed: interrupted before w1 was ready (killed by SIGKILL); the pane could not be killed: gone; its inbox is kept', cause]);
    const plain = await startFailure('resume of w1 failed', log, { lines: [] }, [], 'a string', 100);
    expect([plain.kind, plain.message]).toEqual(['backend', 'resume of w1 failed: a string']);
  });

  it('a stderr log still being written: read until it is the same twice; one that is not there: no stderr lines', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, 'first\n');
    const late = setTimeout(() => void fs.appendFile(log, 'second\n'), 20);
    const e = await startFailure('spawn of w1 failed', log, { lines: [] }, [], new Error('w1 exited'), 2000);
    clearTimeout(late);
    expect(e.message.split('\n').slice(1)).toEqual([`its stderr (${log}):`, '  first', '  second']);
    const none = await startFailure('spawn of w1 failed', `${log}.missing`, { lines: [] }, [], new Error('w1 exited'), 100);
    expect(none.message).toBe('spawn of w1 failed: w1 exited');
  });

  it('a stderr line the pane showed only with other text around it counts as seen; blank lines never count', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, '  boom  \n\n');
    const e = await startFailure('spawn of w1 failed', log, { lines: ['[w1] boom here'] }, [], new Error('w1 exited before it was ready'), 100);
    expect(e.message.split('\n').slice(1)).toEqual(['last output of its pane:', '  [w1] boom here', `its stderr is kept in ${log}`]);
  });
});
