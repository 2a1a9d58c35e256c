// Leader and worker library edges (SPEC §3.5): bad ids and second decisions write nothing, rules
// decide without a pending file (deny beats allow), abort and timeout withdraw the request, orphans
// are detected and cleared, stale requests expire, resolved records are swept, and a signed inbox
// frame alone answers a worker.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inputDigest } from '../../src/permissions/signing.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { appendAudit } from '../../src/permissions/audit.js';
import { addRule, clearOrphaned, decide, expireStale, removeRule, sweepResolved } from '../../src/permissions/leader.js';
import { answerPlan } from '../../src/permissions/plan-answer.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { writePending } from '../../src/permissions/pending.js';
import { listPending } from '../../src/permissions/pending-list.js';
import { requestPermission, type PermissionEvent } from '../../src/permissions/worker.js';
import { encodeControl } from '../../src/protocol/control.js';
import { isSwarmError, type ErrorKind } from '../../src/protocol/errors.js';
import type { PendingRequest } from '../../src/protocol/permission.js';
import { formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { readTeam, updateTeam } from '../../src/team/index.js';
import { listTree } from '../support/fs-tree.js';
import { holdLock, ticketsInLine } from '../support/held-lock.js';
import { waitFor } from '../support/wait.js';
import { auditFor, CWD, inboxOnDisk, ls, reapWorkers, setupTeam, startWorker, TEAM, type Harness } from '../support/perm-harness.js';
import { pendingRecord } from '../support/pending-record.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';

let h: Harness;
useTempRoot(async (root) => {
  h = await setupTeam(root);
});
afterEach(async () => {
  await reapWorkers();
});

function pending(id: string, extra: Partial<PendingRequest> = {}): PendingRequest {
  return pendingRecord(id, { toolUseId: 'toolu_9', createdAt: Date.now(), cwd: CWD, ...extra });
}

async function rejectsWith(p: Promise<unknown>, kind: ErrorKind, text: string): Promise<void> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(isSwarmError(e, kind), String(e)).toBe(true);
  expect((e as Error).message).toContain(text);
}

const teamDir = (): string => path.join(h.root, 'teams', TEAM);

describe('decide: ids and second decisions', () => {
  it('`../../x`, unknown ids and a second decision are clear errors and write nothing', async () => {
    await writePending(h.paths, pending('perm-1-aaa'));
    await decide(new Team(h.root, TEAM), 'perm-1-aaa', 'allow');
    const before = await listTree(h.root);
    await rejectsWith(decide(new Team(h.root, TEAM), '../../x', 'allow'), 'invalid_name', 'invalid request id "../../x"');
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-1-a/b', 'deny'), 'invalid_name', 'invalid request id');
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-404-nope', 'allow'), 'not_found', 'no pending permission request "perm-404-nope"');
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-1-aaa', 'deny'), 'already_resolved', 'already resolved (approved by team-lead)');
    await fs.rm(h.paths.resolvedFile('perm-1-aaa')); // the worker took it: the audit log still knows
    const after = (await listTree(h.root)).sort();
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-1-aaa', 'allow'), 'already_resolved', 'already resolved');
    expect(await listTree(h.root)).toEqual(after);
    expect(after).toEqual(before.filter((p) => p !== 'teams/t/permissions/resolved/perm-1-aaa.json'));
    expect((await auditFor(h.paths, 'perm-1-aaa')).filter((e) => e.event === 'decision')).toHaveLength(1);
  });

  it('--always on deny, or with no safe rule, is refused before anything is written', async () => {
    await writePending(h.paths, pending('perm-2-bbb', { input: { command: 'FOO=1 make' } }));
    const before = await listTree(teamDir());
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-2-bbb', 'deny', { always: true }), 'invalid_input', 'only applies to approving');
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-2-bbb', 'allow', { always: true }), 'invalid_input', 'no safe "always" rule');
    // A tool swarm does not know (a mistyped or made-up name from a request frame) gets no rule either.
    await writePending(h.paths, pending('perm-3-ccc', { toolName: 'bash', input: { command: 'ls' } }));
    const before3 = await listTree(teamDir());
    await rejectsWith(decide(new Team(h.root, TEAM), 'perm-3-ccc', 'allow', { always: true }), 'invalid_input', 'unknown tool "bash"');
    expect(await listTree(teamDir())).toEqual(before3);
    await fs.rm(h.paths.pendingFile('perm-3-ccc'));
    expect(await listTree(teamDir())).toEqual(before);
  });
});

describe('rules decide without asking', () => {
  it('an allow rule approves with no pending file and no frame; both events are audited', async () => {
    await updateTeam(new Team(h.root, TEAM), (c) => void (c.swarm = { rules: { allow: ['Bash(npm test:*)'], deny: [] } }));
    const events: PermissionEvent[] = [];
    const r = await requestPermission({ ...h.base, onEvent: (e) => events.push(e) });
    expect(r).toMatchObject({ decision: 'allow', source: 'rule', rule: 'Bash(npm test:*)', by: 'rule' });
    expect(events).toEqual([{ kind: 'rule', id: r.id, decision: 'allow', rule: 'Bash(npm test:*)' }]);
    expect(await ls(h.paths.pending)).toEqual([]);
    expect(await inboxOnDisk(h.paths, 'team-lead')).toEqual([]);
    expect(await auditFor(h.paths, r.id)).toEqual([
      expect.objectContaining({ event: 'request', worker: 'w1', toolName: 'Bash' }),
      expect.objectContaining({ event: 'decision', status: 'approved', by: 'rule', rule: 'Bash(npm test:*)' }),
    ]);
  });

  it('deny beats allow', async () => {
    await updateTeam(new Team(h.root, TEAM), (c) => void (c.swarm = { rules: { allow: ['Bash'], deny: ['Bash(rm:*)'] } }));
    const denied = await requestPermission({ ...h.base, input: { command: 'rm -rf build' } });
    expect(denied).toMatchObject({ decision: 'deny', source: 'rule', rule: 'Bash(rm:*)', feedback: 'denied by team rule Bash(rm:*)' });
    expect(await requestPermission({ ...h.base, input: { command: 'ls' } })).toMatchObject({ decision: 'allow', rule: 'Bash' });
  });
});

describe('the worker stops waiting', () => {
  it('abort removes the pending file, rejects with the reason, and the frame is not resurrected', async () => {
    const ac = new AbortController();
    let announced!: (id: string) => void;
    const requested = new Promise<string>((resolve) => (announced = resolve));
    const waiting = requestPermission({ ...h.base, signal: ac.signal, onEvent: (e) => e.kind === 'requested' && announced(e.id) });
    const id = await requested;
    ac.abort(new Error('user pressed Esc'));
    await expect(waiting).rejects.toThrow('user pressed Esc');
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditFor(h.paths, id)).map((e) => e.event)).toEqual(['request', 'cancelled']);
    expect(await inboxOnDisk(h.paths, 'team-lead')).toHaveLength(1); // the frame is still there...
    expect(await listPending(new Team(h.root, TEAM))).toEqual([]); // ...but is not materialised again
  });

  it('timeoutMs withdraws the request and answers deny', async () => {
    const r = await requestPermission({ ...h.base, timeoutMs: 300 });
    expect(r).toMatchObject({ decision: 'deny', source: 'timeout', feedback: 'no answer within 0.3s' });
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditFor(h.paths, r.id)).map((e) => e.event)).toEqual(['request', 'timeout']);
  });

  it('a request the leader clears is answered deny (withdrawn)', async () => {
    const w = startWorker(h.base);
    const id = String((await w.event('requested')).id);
    await clearOrphaned(new Team(h.root, TEAM), id, { force: true });
    expect((await w.done()).result).toMatchObject({ decision: 'deny', source: 'withdrawn', feedback: 'request cleared by team-lead: worker gone' });
  });
});

describe('a signed inbox frame alone answers the worker', () => {
  it('takes the frame (only it), honours updated_input', async () => {
    const w = startWorker(h.base);
    const id = String((await w.event('requested')).id);
    const { mailbox } = await openLeadMailbox({ team: new Team(h.root, TEAM) });
    await mailbox.append('w1', { from: 'team-lead', text: 'unrelated: keep going' });
    const edit = { updated_input: { command: 'npm test -- --ci' } }; // an edit of the request it saw (bound by its digest)
    const frame = encodeControl({ type: 'permission_response', request_id: id, subtype: 'success', input_sha256: inputDigest(h.base.input), response: edit });
    await mailbox.append('w1', { from: 'team-lead', text: frame });
    expect((await w.done()).result).toMatchObject({ decision: 'allow', source: 'inbox', updatedInput: { command: 'npm test -- --ci' } });
    const inbox = await inboxOnDisk(h.paths, 'w1');
    expect(inbox.map((m) => [m.text.slice(0, 12), m.read])).toEqual([
      ['unrelated: k', false],
      [frame.slice(0, 12), true],
    ]);
  });
});

describe('listPending, orphans, expiry, sweep', () => {
  it('oldest first with age; orphaned when the pid is dead or the member is gone; clear removes only orphans', async () => {
    const child = execa(process.execPath, ['-e', '']);
    const deadPid = child.pid!;
    await child;
    const now = Date.now();
    await writePending(h.paths, pending('perm-3-new', { createdAt: now - 1_000, workerPid: process.pid }));
    await writePending(h.paths, pending('perm-3-old', { createdAt: now - 9_000, workerPid: deadPid }));
    await writePending(h.paths, pending('perm-3-gone', { createdAt: now - 5_000, workerName: 'ghost', workerId: `ghost@${TEAM}` }));
    const list = await listPending(new Team(h.root, TEAM), { now: () => now });
    expect(list.map((p) => [p.id, p.ageMs, p.orphaned])).toEqual([
      ['perm-3-old', 9_000, true],
      ['perm-3-gone', 5_000, true],
      ['perm-3-new', 1_000, false],
    ]);
    await rejectsWith(clearOrphaned(new Team(h.root, TEAM), 'perm-3-new'), 'invalid_input', 'still alive');
    await clearOrphaned(new Team(h.root, TEAM), 'perm-3-old');
    await clearOrphaned(new Team(h.root, TEAM), 'perm-3-gone');
    expect(await ls(h.paths.pending)).toEqual(['perm-3-new.json']);
    expect((await auditFor(h.paths, 'perm-3-old')).map((e) => e.event)).toEqual(['cleared']);
  });

  it('expireStale denies only requests older than the timeout; the waiting worker hears why', async () => {
    const w = startWorker(h.base);
    const id = String((await w.event('requested')).id);
    await writePending(h.paths, pending('perm-4-fresh', { createdAt: Date.now() + 60_000 }));
    const denied = await expireStale(new Team(h.root, TEAM), 2_000, { now: () => Date.now() + 5_000 });
    expect(denied).toEqual([id]);
    expect((await w.done()).result).toMatchObject({ decision: 'deny', by: 'timeout', feedback: 'no answer within 2s' });
    // The frame says so too (the worker may read it before the resolved file).
    const frames = (await inboxOnDisk(h.paths, 'w1')).map((m) => m.text).filter((t) => t.includes('"permission_response"'));
    expect(frames.map((t) => JSON.parse(t) as { resolved_by?: string })).toEqual([expect.objectContaining({ request_id: id, resolved_by: 'timeout' })]);
    expect(await ls(h.paths.pending)).toEqual(['perm-4-fresh.json']);
  });

  it('sweepResolved removes resolutions older than an hour, keeps newer ones', async () => {
    const now = Date.now();
    for (const [id, age] of [['perm-5-old', 3_700_000], ['perm-5-new', 60_000]] as const) {
      await writeFileAtomic(h.paths.resolvedFile(id), formatJson({ id, status: 'approved', resolvedAt: now - age, resolvedBy: 'team-lead', workerId: 'w1@t', workerName: 'w1', teamName: TEAM, toolName: 'Bash' }));
    }
    expect(await sweepResolved(new Team(h.root, TEAM), { now: () => now })).toEqual(['perm-5-old']);
    expect(await ls(h.paths.resolved)).toEqual(['perm-5-new.json']);
  });
});

describe('the audit comes first (issue 30)', () => {
  /** audit.jsonl as a directory: nothing can append to it (root included). */
  async function breakAudit(): Promise<void> {
    await fs.rm(h.paths.audit, { force: true });
    await fs.mkdir(h.paths.audit, { recursive: true });
  }
  const rules = async () => (await readTeam(new Team(h.root, TEAM))).swarm?.rules;

  it('an audit log that cannot be written: approve, deny, a rule added or removed and a plan answer do nothing and say so', async () => {
    const team = new Team(h.root, TEAM);
    await addRule(team, 'deny', 'Bash(rm:*)');
    await writePending(h.paths, pending('perm-6-aaa'));
    await breakAudit();
    const before = await listTree(h.root);
    const refused = (what: string) => new RegExp(`^${what}: the audit log \\S+audit\\.jsonl cannot be written \\(EISDIR[^)]*\\); nothing was changed$`);
    for (const [act, what] of [
      [() => decide(team, 'perm-6-aaa', 'allow'), 'perm-6-aaa was not approved'],
      [() => decide(team, 'perm-6-aaa', 'deny'), 'perm-6-aaa was not denied'],
      [() => addRule(team, 'allow', 'Bash(npm test:*)'), 'the allow rule Bash\\(npm test:\\*\\) was not added'],
      [() => removeRule(team, 'Bash(rm:*)'), 'the rule Bash\\(rm:\\*\\) was not removed'],
    ] as const) {
      const e = await (act() as Promise<unknown>).then(() => undefined, (err: unknown) => err);
      expect(isSwarmError(e, 'io'), String(e)).toBe(true);
      expect((e as Error).message).toMatch(refused(what));
    }
    // A rule already there changes nothing, so it needs no audit line.
    expect(await addRule(team, 'deny', 'Bash(rm:*)')).toBe(false);
    expect(await listTree(h.root)).toEqual(before);
    expect(await rules()).toEqual({ allow: [], deny: ['Bash(rm:*)'] });
    expect(await inboxOnDisk(h.paths, 'w1')).toEqual([]);
    // A plan answer too: the request stays unanswered.
    const { mailbox } = await openLeadMailbox({ team });
    await new Mailbox({ team }).append('team-lead', { from: 'w1', text: encodeControl({ type: 'plan_approval_request', from: 'w1', timestamp: new Date().toISOString(), planFilePath: '', planContent: 'the plan', requestId: 'plan-1' }) });
    const plan = await answerPlan(team, 'w1', { approve: true }).then(() => undefined, (err: unknown) => err);
    expect((plan as Error).message).toMatch(refused("w1's plan was not approved"));
    expect(await mailbox.read('w1')).toEqual([]);
  });

  it('an audit line that fails after the act: the error says what was done (approved and sent, the rule in force)', async () => {
    const team = new Team(h.root, TEAM);
    await writePending(h.paths, pending('perm-7-aaa'));
    await appendAudit(h.paths, { event: 'request', id: 'perm-7-aaa', at: Date.now(), worker: 'w1', toolName: 'Bash' });
    // The log is writable when checked, and gone by the time the line is written: hold its lock,
    // let the act happen, break the log while the act's line waits for the lock, then let go.
    const raced = async <T>(act: () => Promise<T>): Promise<unknown> => {
      const hold = await holdLock(h.paths.audit);
      const result = act().then(() => undefined, (err: unknown) => err);
      await waitFor(async () => (await ticketsInLine(h.paths.audit)) === 1, 10_000, 'the audit line waiting for its lock');
      await breakAudit();
      hold.release();
      await hold.held;
      const e = await result;
      await fs.rm(h.paths.audit, { recursive: true });
      return e;
    };
    const approved = await raced(() => decide(team, 'perm-7-aaa', 'allow'));
    expect(isSwarmError(approved, 'io'), String(approved)).toBe(true);
    expect((approved as Error).message).toMatch(/^approved perm-7-aaa \(w1 Bash\) and sent the answer to w1; the audit line could not be written to \S+audit\.jsonl: EISDIR/);
    expect((approved as Error).message.split('\n')).toHaveLength(1);
    expect((await inboxOnDisk(h.paths, 'w1')).map((m) => (JSON.parse(m.text) as { request_id?: string }).request_id)).toEqual(['perm-7-aaa']);
    expect(await ls(h.paths.resolved)).toEqual(['perm-7-aaa.json']);
    expect(await ls(h.paths.pending)).toEqual([]);

    const added = await raced(() => addRule(team, 'allow', 'Bash(npm test:*)'));
    expect((added as Error).message).toMatch(/^added the allow rule Bash\(npm test:\*\) \(it is in force\); the audit line could not be written to \S+audit\.jsonl: EISDIR/);
    expect(await rules()).toEqual({ allow: ['Bash(npm test:*)'], deny: [] });
  });
});
