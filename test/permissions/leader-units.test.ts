// The leader side of permission requests in this process (src/permissions/leader.ts, SPEC §3.5):
// why a request is not pending (each wording), which requests decide takes, exactly what it writes
// (resolved record, the frame the worker gets, the audit line, the result), an answer already in the
// worker's inbox, a decider whose lock was taken over (no frame, or no record after a late one),
// "always" and its refusals, addRule/removeRule, expireStale, clearOrphaned and sweepResolved. Real files in a temp root, the team's real signing key, no mocks.
import { mkdirSync, rmSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit, readAudit } from '../../src/permissions/audit.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { addRule, clearOrphaned, decide, expireStale, removeRule, sweepResolved } from '../../src/permissions/leader.js';
import { writePending } from '../../src/permissions/pending.js';
import { checkRule } from '../../src/permissions/rules.js';
import { inputDigest, verifyRecord } from '../../src/permissions/signing.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { encodeControl } from '../../src/protocol/control.js';
import { isSwarmError, type ErrorKind } from '../../src/protocol/errors.js';
import { PendingRequestSchema, type AuditEvent, type PendingRequest } from '../../src/protocol/permission.js';
import { formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { createTeam, readTeam, updateTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { listTree } from '../support/fs-tree.js';
import { CWD, inboxOnDisk, ls, responseFrames, setupTeam, TEAM, type Harness } from '../support/perm-harness.js';
import { pendingRecord } from '../support/pending-record.js';
import { tempRoot, useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let h: Harness;
useTempRoot(async (root) => {
  h = await setupTeam(root);
});

const T = 1_700_000_000_000; // the clock handed to the code under test
const clock = (): number => T;
const team = (): Team => new Team(h.root, TEAM);

function pending(id: string, extra: Partial<PendingRequest> = {}): PendingRequest {
  return pendingRecord(id, { toolUseId: 'toolu_9', input: { command: 'npm test' }, createdAt: T - 1_000, cwd: CWD, ...extra });
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

/** `p` rejects with SwarmError(kind) whose message is exactly `message`. */
async function rejectsExactly(p: Promise<unknown>, kind: ErrorKind, message: string): Promise<void> {
  const e = await failure(p);
  expect(isSwarmError(e, kind), String(e)).toBe(true);
  expect((e as Error).message).toBe(message);
}

/** Audit lines of `id` without their chain digest. */
async function auditOf(id: string): Promise<Omit<AuditEvent, 'prev'>[]> {
  return (await readAudit(h.paths)).filter((e) => e.id === id).map(({ prev: _prev, ...e }) => e);
}

async function framesOf(name: string, id: string): Promise<{ entry: Awaited<ReturnType<typeof responseFrames>>[number]; frame: unknown }[]> {
  return (await responseFrames(h.paths, name, id)).map((entry) => ({ entry, frame: JSON.parse(entry.text) as unknown }));
}

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
}

const ccRequest = (id: string, command = 'npm test'): string =>
  JSON.stringify({ type: 'permission_request', request_id: id, agent_id: 'w1', tool_name: 'Bash', tool_use_id: 'toolu_cc', description: 'x', input: { command }, permission_suggestions: [] });

/** An unsigned `permission_response` from team-lead in `to`'s inbox: how a Claude Code leader answers. */
async function unsignedAnswer(to: string, id: string, subtype: 'success' | 'error'): Promise<void> {
  const text = subtype === 'success' ? JSON.stringify({ type: 'permission_response', request_id: id, subtype, response: {} }) : JSON.stringify({ type: 'permission_response', request_id: id, subtype, error: 'no' });
  await new Mailbox({ team: team() }).append(to, { from: 'team-lead', text });
}

/** A signed approval of `id` in w1's inbox, as another swarm leader writes it (its resolved file not there). */
async function signedApproval(id: string, input: Record<string, unknown>): Promise<void> {
  const { mailbox } = await openLeadMailbox({ team: team() });
  const text = encodeControl({ type: 'permission_response', request_id: id, subtype: 'success', input_sha256: inputDigest(input), response: { updated_input: input } });
  await mailbox.append('w1', { from: 'team-lead', text });
}

describe('why a request is not pending', () => {
  it('a resolved file names its status and decider; a JSON file that is not a record is "a resolution is on file"', async () => {
    await writeFileAtomic(h.paths.resolvedFile('perm-1-aaa'), formatJson({ id: 'perm-1-aaa', workerId: 'w1@t', workerName: 'w1', teamName: TEAM, toolName: 'Bash', status: 'rejected', resolvedBy: 'timeout', resolvedAt: T }));
    await rejectsExactly(decide(team(), 'perm-1-aaa', 'allow'), 'already_resolved', "permission request perm-1-aaa is already resolved (rejected by timeout); see 'swarm permissions'");
    await writeFileAtomic(h.paths.resolvedFile('perm-1-bbb'), '{"id": 1}');
    await rejectsExactly(decide(team(), 'perm-1-bbb', 'allow'), 'already_resolved', "permission request perm-1-bbb is already resolved (a resolution is on file); see 'swarm permissions'");
  });

  it('a resolved file that is not JSON is no resolution (not_found); one that cannot be read is that error', async () => {
    await writeFileAtomic(h.paths.resolvedFile('perm-1-aaa'), 'not json');
    await rejectsExactly(decide(team(), 'perm-1-aaa', 'allow'), 'not_found', `no pending permission request "perm-1-aaa"; see 'swarm permissions' for the ids`);
    mkdirSync(h.paths.resolvedFile('perm-1-ccc'), { recursive: true });
    expect(await failure(decide(team(), 'perm-1-ccc', 'allow'))).toMatchObject({ code: 'EISDIR' });
  });

  it('the audit line that ended it is named: a decision (with its defaults), who timed it out and why, a bare cancel', async () => {
    await appendAudit(
      h.paths,
      { event: 'decision', id: 'perm-2-a', at: T },
      { event: 'decision', id: 'perm-2-b', at: T, status: 'approved', by: 'rule' },
      { event: 'timeout', id: 'perm-2-c', at: T, by: 'w1', reason: 'no answer within 2s' },
      { event: 'cancelled', id: 'perm-2-d', at: T },
    );
    const said = (what: string, id: string): string => `permission request ${id} is already resolved (${what}); see 'swarm permissions'`;
    await rejectsExactly(decide(team(), 'perm-2-a', 'allow'), 'already_resolved', said('decided by team-lead', 'perm-2-a'));
    await rejectsExactly(decide(team(), 'perm-2-b', 'allow'), 'already_resolved', said('approved by rule', 'perm-2-b'));
    await rejectsExactly(decide(team(), 'perm-2-c', 'allow'), 'already_resolved', said('timeout by w1: no answer within 2s', 'perm-2-c'));
    await rejectsExactly(decide(team(), 'perm-2-d', 'allow'), 'already_resolved', said('cancelled', 'perm-2-d'));
  });

  it("a Claude Code teammate's request its Claude Code leader answered: named with that answer, nothing sent", async () => {
    const lead = new Mailbox({ team: team() });
    // Entries before the request that must not be taken for it.
    await lead.append('team-lead', { from: 'w2', text: 'plain words, not a frame' });
    await lead.append('team-lead', { from: 'w2', text: JSON.stringify({ type: 'permission_response', request_id: 'perm-3-a', subtype: 'success', response: {} }) });
    await lead.append('team-lead', { from: 'w2', text: ccRequest('perm-3-other') });
    await lead.append('team-lead', { from: 'w1', text: ccRequest('perm-3-a') });
    await lead.append('team-lead', { from: 'w1', text: ccRequest('perm-3-b') });
    await unsignedAnswer('w1', 'perm-3-a', 'success');
    await unsignedAnswer('w1', 'perm-3-b', 'error');
    const inbox = await inboxOnDisk(h.paths, 'w1');
    await rejectsExactly(decide(team(), 'perm-3-a', 'deny'), 'already_resolved', 'permission request perm-3-a is already answered by team-lead (Claude Code) (approved); nothing was sent');
    await rejectsExactly(decide(team(), 'perm-3-b', 'allow'), 'already_resolved', 'permission request perm-3-b is already answered by team-lead (Claude Code) (rejected); nothing was sent');
    expect(await inboxOnDisk(h.paths, 'w1')).toEqual(inbox);
    expect((await ls(h.paths.pending)).filter((n) => !n.startsWith('perm-3-other'))).toEqual([]);
    expect(await ls(h.paths.resolved)).toEqual([]);
  });
});

describe('which requests decide takes', () => {
  it("a Claude Code teammate's request known only from its frame is decided without listing it first", async () => {
    await new Mailbox({ team: team() }).append('team-lead', { from: 'w1', text: ccRequest('perm-4-cc') });
    const r = await decide(team(), 'perm-4-cc', 'allow');
    expect(r).toMatchObject({ id: 'perm-4-cc', status: 'approved', frameSent: true, request: { source: 'inbox', input: { command: 'npm test' } } });
    expect(await ls(h.paths.pending)).toEqual([]);
    expect(await framesOf('w1', 'perm-4-cc')).toHaveLength(1);
  });

  it('deciding a request on file does not materialise the inbox frames of others', async () => {
    await writePending(h.paths, pending('perm-4-file'));
    await new Mailbox({ team: team() }).append('team-lead', { from: 'w2', text: ccRequest('perm-4-other') });
    await decide(team(), 'perm-4-file', 'allow');
    expect(await ls(h.paths.pending)).toEqual([]);
  });

  it('an unknown id in a team that never had a request writes nothing, not even a key', async () => {
    await createTeam(h.root, { name: 'fresh' });
    const before = await listTree(h.root);
    await rejectsExactly(decide(new Team(h.root, 'fresh'), 'perm-5-x', 'allow'), 'not_found', `no pending permission request "perm-5-x"; see 'swarm permissions' for the ids`);
    expect(await listTree(h.root)).toEqual(before);
  });

  it('a request ended while the decider waited for its lock is already resolved; nothing is written', async () => {
    const id = 'perm-6-race';
    await writePending(h.paths, pending(id));
    let deciding!: Promise<unknown>;
    await withFileLock(h.paths.pendingFile(id), async () => {
      deciding = failure(decide(team(), id, 'allow'));
      await waitFor(async () => (await ls(queueDirFor(h.paths.pendingFile(id)))).length > 0, 10_000, 'the decider queued for the lock');
      await appendAudit(h.paths, { event: 'cancelled', id, at: T, worker: 'w1', toolName: 'Bash', reason: 'aborted' });
      await fs.rm(h.paths.pendingFile(id));
    });
    const e = await deciding;
    expect(isSwarmError(e, 'already_resolved'), String(e)).toBe(true);
    expect((e as Error).message).toBe(`permission request ${id} is already resolved (cancelled: aborted); see 'swarm permissions'`);
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect(await framesOf('w1', id)).toEqual([]);
  });

  it('a pending file that holds another id is refused, naming the file', async () => {
    await writePending(h.paths, pending('perm-7-b'));
    await fs.rename(h.paths.pendingFile('perm-7-b'), h.paths.pendingFile('perm-7-a'));
    await rejectsExactly(decide(team(), 'perm-7-a', 'allow'), 'invalid_input', `${h.paths.pendingFile('perm-7-a')} holds request "perm-7-b", not "perm-7-a"; remove it by hand`);
    expect(await ls(h.paths.pending)).toEqual(['perm-7-a.json']);
  });
});

describe('a decider whose lock was taken over (it stalled past the stale window)', () => {
  /** What a takeover leaves: the request's lock directory is another one now (new inode, fresh mtime). */
  const takeOver = (id: string): void => {
    const lock = `${h.paths.pendingFile(id)}.lock`;
    rmSync(lock, { recursive: true });
    mkdirSync(lock);
  };

  it('sends no frame and writes nothing: lock_lost, the request still pending for the new holder', async () => {
    const id = 'perm-6-lost';
    await writePending(h.paths, pending(id));
    // The clock is first read inside the lock, after the pending file was re-read: the stall happens there.
    const e = await failure(decide(team(), id, 'allow', { now: () => (takeOver(id), T) }));
    expect(isSwarmError(e, 'lock_lost'), String(e)).toBe(true);
    expect(await framesOf('w1', id)).toEqual([]);
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect(await ls(h.paths.pending)).toEqual([`${id}.json`, `${id}.json.lock`]); // the new holder's lock, untouched
    expect(await auditOf(id)).toEqual([]);
    await fs.rmdir(`${h.paths.pendingFile(id)}.lock`); // the new holder finishes
    expect((await decide(team(), id, 'deny', { now: clock })).status).toBe('rejected');
    expect((await framesOf('w1', id)).map((f) => (f.frame as { subtype: string }).subtype)).toEqual(['error']);
  });

  it('taken over while its frame waited for the inbox lock: no resolved record; the next decider ends the request with that frame', async () => {
    const id = 'perm-6-late';
    await writePending(h.paths, pending(id));
    const inbox = h.paths.inbox('w1');
    let releaseInbox!: () => void;
    const inboxHeld = withFileLock(inbox, () => new Promise<void>((r) => (releaseInbox = r)));
    await waitFor(() => releaseInbox !== undefined, 10_000, 'the inbox lock held');
    const deciding = failure(decide(team(), id, 'allow', { now: clock }));
    await waitFor(async () => (await ls(queueDirFor(inbox))).length > 0, 10_000, "the decider's frame queued for the inbox lock");
    takeOver(id);
    releaseInbox();
    await inboxHeld;
    const e = await deciding;
    expect(isSwarmError(e, 'lock_lost'), String(e)).toBe(true);
    expect((await framesOf('w1', id)).map((f) => (f.frame as { subtype: string }).subtype)).toEqual(['success']);
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect(await auditOf(id)).toEqual([]);
    await fs.rmdir(`${h.paths.pendingFile(id)}.lock`);
    await rejectsExactly(decide(team(), id, 'deny', { now: clock }), 'already_resolved', `permission request ${id} is already answered by team-lead (approved); nothing was sent`);
    expect(await framesOf('w1', id)).toHaveLength(1);
    expect(await auditOf(id)).toEqual([{ event: 'decision', id, at: T, worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' }]);
  });
});

describe('what decide writes', () => {
  it('approve: signed record, the frame (lead colour, input digest, the input as updated_input, no resolved_by), the audit line, the result', async () => {
    const request = PendingRequestSchema.parse(pending('perm-8-a'));
    await writePending(h.paths, request);
    const r = await decide(team(), 'perm-8-a', 'allow', { now: clock });
    const { signature, ...unsigned } = r.resolved;
    expect(unsigned).toEqual({ id: 'perm-8-a', workerId: 'w1@t', workerName: 'w1', teamName: TEAM, toolName: 'Bash', toolUseId: 'toolu_9', input: { command: 'npm test' }, status: 'approved', resolvedBy: 'team-lead', resolvedAt: T });
    expect(typeof signature).toBe('string');
    expect(r).toEqual({ id: 'perm-8-a', status: 'approved', request, resolved: r.resolved, frameSent: true });
    expect(await readJson(h.paths.resolvedFile('perm-8-a'))).toEqual(r.resolved);
    expect(verifyRecord(r.resolved, h.key.verifyKey)).toBe(true);
    const lead = (await readTeam(team())).members.find((m) => m.name === 'team-lead');
    const [sent, ...more] = await framesOf('w1', 'perm-8-a');
    expect(more).toEqual([]);
    expect(sent?.entry).toMatchObject({ from: 'team-lead', color: lead?.color });
    expect(sent?.frame).toEqual({ type: 'permission_response', request_id: 'perm-8-a', subtype: 'success', input_sha256: inputDigest({ command: 'npm test' }), response: { updated_input: { command: 'npm test' } } });
    expect(await auditOf('perm-8-a')).toEqual([{ event: 'decision', id: 'perm-8-a', at: T, worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' }]);
    expect(await ls(h.paths.pending)).toEqual([]);
  });

  it('a worker quicker than the resolved file (it took the frame and removed the file before it existed): the file goes at once, the decision stays audited', async () => {
    await writePending(h.paths, PendingRequestSchema.parse(pending('perm-8-q')));
    const worker = new Mailbox({ team: team() });
    const r = await decide(team(), 'perm-8-q', 'allow', {
      now: clock,
      afterFrame: async () => {
        expect(await worker.consume('w1')).toHaveLength(1); // the worker's inbox path: it takes the frame ...
        await fs.rm(h.paths.resolvedFile('perm-8-q'), { force: true }); // ... and removes a file not written yet
      },
    });
    expect(r.status).toBe('approved');
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditOf('perm-8-q')).map((e) => e.event)).toEqual(['decision']);
  });

  it('a config.json with no team-lead member (edited by hand): still decided, the frame has no colour', async () => {
    await updateTeam(team(), (c) => void (c.members = c.members.filter((m) => m.name !== 'team-lead')));
    await writePending(h.paths, pending('perm-8-nolead'));
    expect(await decide(team(), 'perm-8-nolead', 'allow')).toMatchObject({ status: 'approved', frameSent: true });
    const [sent] = await framesOf('w1', 'perm-8-nolead');
    expect(sent?.entry).toMatchObject({ from: 'team-lead' });
    expect(sent?.entry).not.toHaveProperty('color');
  });

  it('resolved_by is in the frame only for a decider other than team-lead', async () => {
    for (const [id, by] of [['perm-8-lead', 'team-lead'], ['perm-8-w2', 'w2']] as const) {
      await writePending(h.paths, pending(id));
      const r = await decide(team(), id, id.endsWith('lead') ? 'allow' : 'deny', { by });
      expect(r.resolved.resolvedBy).toBe(by);
    }
    expect((await framesOf('w1', 'perm-8-lead'))[0]?.frame).not.toHaveProperty('resolved_by');
    expect((await framesOf('w1', 'perm-8-w2'))[0]?.frame).toMatchObject({ resolved_by: 'w2' });
  });

  it("approve with an edit: the record's updatedInput and the frame's updated_input are the edit", async () => {
    await writePending(h.paths, pending('perm-9-a'));
    const edit = { command: 'npm test -- --ci' };
    const r = await decide(team(), 'perm-9-a', 'allow', { updatedInput: edit });
    expect(r.resolved).toMatchObject({ status: 'approved', updatedInput: edit, input: { command: 'npm test' } });
    expect((await framesOf('w1', 'perm-9-a'))[0]?.frame).toMatchObject({ subtype: 'success', input_sha256: inputDigest({ command: 'npm test' }), response: { updated_input: edit } });
  });

  it('deny: a rejected record and an error frame with the feedback (default when none or empty); the feedback audited; an edit ignored', async () => {
    for (const id of ['perm-10-a', 'perm-10-b', 'perm-10-c']) await writePending(h.paths, pending(id));
    const a = await decide(team(), 'perm-10-a', 'deny', { feedback: 'use make', updatedInput: { command: 'make' }, now: clock });
    expect(a).toMatchObject({ status: 'rejected', frameSent: true });
    expect(a.resolved).toMatchObject({ status: 'rejected', feedback: 'use make' });
    expect(a.resolved).not.toHaveProperty('updatedInput');
    expect((await framesOf('w1', 'perm-10-a')).map((f) => f.frame)).toEqual([{ type: 'permission_response', request_id: 'perm-10-a', subtype: 'error', error: 'use make' }]);
    expect(await auditOf('perm-10-a')).toEqual([{ event: 'decision', id: 'perm-10-a', at: T, worker: 'w1', toolName: 'Bash', status: 'rejected', by: 'team-lead', feedback: 'use make' }]);
    const b = await decide(team(), 'perm-10-b', 'deny', { feedback: '' });
    const c = await decide(team(), 'perm-10-c', 'deny');
    for (const [id, r] of [['perm-10-b', b], ['perm-10-c', c]] as const) {
      expect(r.resolved).not.toHaveProperty('feedback');
      expect((await framesOf('w1', id)).map((f) => f.frame)).toEqual([{ type: 'permission_response', request_id: id, subtype: 'error', error: 'denied by team-lead' }]);
      expect((await auditOf(id))[0]).not.toHaveProperty('feedback');
    }
  });

  it('a worker no longer a member: decided with no frame (frameSent false); "always" uses the request\'s cwd', async () => {
    await writePending(h.paths, pending('perm-11-a', { workerName: 'ghost', workerId: `ghost@${TEAM}` }));
    const r = await decide(team(), 'perm-11-a', 'allow', { always: true });
    expect(r).toMatchObject({ status: 'approved', frameSent: false, rule: 'Bash(npm test:*)' });
    expect(await ls(path.dirname(h.paths.inbox('ghost')))).not.toContain('ghost.json');
    expect(await readJson(h.paths.resolvedFile('perm-11-a'))).toMatchObject({ workerName: 'ghost', status: 'approved' });
  });
});

describe('"always"', () => {
  const bashUpdate = { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }], behavior: 'allow', destination: 'session' };

  it("adds the rule: in the result, the record and the frame as Claude Code's PermissionUpdate, audited with the decision and as a rule; no request cwd takes the member's", async () => {
    const { cwd: _cwd, ...noCwd } = pending('perm-12-a');
    await writePending(h.paths, noCwd);
    const r = await decide(team(), 'perm-12-a', 'allow', { always: true, now: clock });
    expect(r).toMatchObject({ status: 'approved', rule: 'Bash(npm test:*)', frameSent: true });
    expect(r.resolved.permissionUpdates).toEqual([bashUpdate]);
    expect(await readJson(h.paths.resolvedFile('perm-12-a'))).toMatchObject({ permissionUpdates: [bashUpdate] });
    expect((await framesOf('w1', 'perm-12-a'))[0]?.frame).toMatchObject({ response: { updated_input: { command: 'npm test' }, permission_updates: [bashUpdate] } });
    expect((await readTeam(team())).swarm?.rules).toEqual({ allow: ['Bash(npm test:*)'], deny: [] });
    expect(await auditOf('perm-12-a')).toEqual([{ event: 'decision', id: 'perm-12-a', at: T, worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead', rule: 'Bash(npm test:*)' }]);
    expect((await auditOf('Bash(npm test:*)')).map(({ at: _at, ...e }) => e)).toEqual([{ event: 'rule', id: 'Bash(npm test:*)', status: 'added', list: 'allow', by: 'team-lead' }]);
  });

  it('for a tool without patterns the update names the tool alone', async () => {
    await writePending(h.paths, pending('perm-12-b', { toolName: 'WebSearch', input: { query: 'zod' } }));
    const r = await decide(team(), 'perm-12-b', 'allow', { always: true });
    expect(r.rule).toBe('WebSearch');
    expect(r.resolved.permissionUpdates).toStrictEqual([{ type: 'addRules', rules: [{ toolName: 'WebSearch' }], behavior: 'allow', destination: 'session' }]);
  });

  it('is refused, word for word, on a deny, when no safe rule fits, and for a tool swarm does not know', async () => {
    await writePending(h.paths, pending('perm-13-a', { input: { command: 'FOO=1 make' } }));
    await writePending(h.paths, pending('perm-13-b', { toolName: 'bash', input: { command: 'ls' } }));
    await rejectsExactly(decide(team(), 'perm-13-a', 'deny', { always: true }), 'invalid_input', '"always" only applies to approving a request');
    await rejectsExactly(decide(team(), 'perm-13-a', 'allow', { always: true }), 'invalid_input', `no safe "always" rule fits this Bash request; approve it without --always, or add a rule with 'swarm permissions allow <rule>'`);
    const why = ((): string => {
      try {
        checkRule('bash');
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('checkRule accepted "bash"');
    })();
    await rejectsExactly(decide(team(), 'perm-13-b', 'allow', { always: true }), 'invalid_input', `no safe "always" rule fits this bash request (${why}); approve it without --always, or add a rule with 'swarm permissions allow <rule>'`);
    expect(await ls(h.paths.pending)).toEqual(['perm-13-a.json', 'perm-13-b.json']);
  });
});

describe("an answer already in the worker's inbox", () => {
  it("another swarm leader's signed answer wins: the request ends with it (audited), nothing is sent", async () => {
    await writePending(h.paths, pending('perm-14-a'));
    await signedApproval('perm-14-a', { command: 'npm test' });
    await rejectsExactly(decide(team(), 'perm-14-a', 'deny', { now: clock }), 'already_resolved', 'permission request perm-14-a is already answered by team-lead (approved); nothing was sent');
    expect(await ls(h.paths.pending)).toEqual([]);
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect(await framesOf('w1', 'perm-14-a')).toHaveLength(1);
    expect(await auditOf('perm-14-a')).toEqual([{ event: 'decision', id: 'perm-14-a', at: T, worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' }]);
  });

  it("an unsigned answer counts only for a Claude Code teammate's request", async () => {
    await writePending(h.paths, pending('perm-15-file'));
    await unsignedAnswer('w1', 'perm-15-file', 'error');
    expect(await decide(team(), 'perm-15-file', 'allow')).toMatchObject({ status: 'approved', frameSent: true });
    expect(await framesOf('w1', 'perm-15-file')).toHaveLength(2);

    await writePending(h.paths, pending('perm-15-cc', { source: 'inbox' }));
    await unsignedAnswer('w1', 'perm-15-cc', 'error');
    await rejectsExactly(decide(team(), 'perm-15-cc', 'allow', { now: clock }), 'already_resolved', 'permission request perm-15-cc is already answered by team-lead (Claude Code) (rejected); nothing was sent');
    expect(await framesOf('w1', 'perm-15-cc')).toHaveLength(1);
    expect(await ls(h.paths.pending)).toEqual([]);
    expect(await auditOf('perm-15-cc')).toEqual([{ event: 'decision', id: 'perm-15-cc', at: T, worker: 'w1', toolName: 'Bash', status: 'rejected', by: 'team-lead (Claude Code)' }]);
  });
});

describe('addRule and removeRule', () => {
  it('addRule adds to the list named, once, and audits once, on a team with no rules yet', async () => {
    expect((await readTeam(team())).swarm).toBeUndefined();
    expect(await addRule(team(), 'allow', 'Bash(ls:*)', clock)).toBe(true);
    expect(await addRule(team(), 'allow', 'Bash(ls:*)', clock)).toBe(false);
    expect(await addRule(team(), 'deny', 'Bash(rm:*)', clock)).toBe(true);
    expect((await readTeam(team())).swarm?.rules).toEqual({ allow: ['Bash(ls:*)'], deny: ['Bash(rm:*)'] });
    expect([...(await auditOf('Bash(ls:*)')), ...(await auditOf('Bash(rm:*)'))]).toEqual([
      { event: 'rule', id: 'Bash(ls:*)', at: T, status: 'added', list: 'allow', by: 'team-lead' },
      { event: 'rule', id: 'Bash(rm:*)', at: T, status: 'added', list: 'deny', by: 'team-lead' },
    ]);
  });

  it('removeRule removes from both lists, keeps the other rules, audits each; a rule in neither, or no rules at all: nothing', async () => {
    expect(await removeRule(team(), 'Bash', clock)).toEqual([]);
    await updateTeam(team(), (c) => void (c.swarm = { rules: { allow: ['Read', 'Bash', 'Grep'], deny: ['Bash', 'Write'] } }));
    expect(await removeRule(team(), 'Bash', clock)).toEqual(['allow', 'deny']);
    expect((await readTeam(team())).swarm?.rules).toEqual({ allow: ['Read', 'Grep'], deny: ['Write'] });
    expect(await removeRule(team(), 'Edit', clock)).toEqual([]);
    expect((await readTeam(team())).swarm?.rules).toEqual({ allow: ['Read', 'Grep'], deny: ['Write'] });
    expect(await readAudit(h.paths)).toHaveLength(2);
    expect(await auditOf('Bash')).toEqual([
      { event: 'rule', id: 'Bash', at: T, status: 'removed', list: 'allow', by: 'team-lead' },
      { event: 'rule', id: 'Bash', at: T, status: 'removed', list: 'deny', by: 'team-lead' },
    ]);
  });
});

describe('expireStale', () => {
  it('denies the requests at least the timeout old (oldest first), by timeout, with the feedback, on the clock given', async () => {
    await writePending(h.paths, pending('perm-16-at', { createdAt: T - 2_000 }));
    await writePending(h.paths, pending('perm-16-young', { createdAt: T - 1_999 }));
    await writePending(h.paths, pending('perm-16-old', { createdAt: T - 5_000 }));
    expect(await expireStale(team(), 2_000, { now: clock })).toEqual(['perm-16-old', 'perm-16-at']);
    expect(await ls(h.paths.pending)).toEqual(['perm-16-young.json']);
    expect(await readJson(h.paths.resolvedFile('perm-16-at'))).toMatchObject({ status: 'rejected', resolvedBy: 'timeout', resolvedAt: T, feedback: 'no answer within 2s' });
    expect((await framesOf('w1', 'perm-16-at')).map((f) => f.frame)).toEqual([{ type: 'permission_response', request_id: 'perm-16-at', subtype: 'error', resolved_by: 'timeout', error: 'no answer within 2s' }]);
    expect(await auditOf('perm-16-at')).toEqual([{ event: 'decision', id: 'perm-16-at', at: T, worker: 'w1', toolName: 'Bash', status: 'rejected', by: 'timeout', feedback: 'no answer within 2s' }]);
  });

  it('skips a request answered or gone meanwhile; any other error stops it', async () => {
    await writePending(h.paths, pending('perm-17-answered', { createdAt: T - 9_000 }));
    await writePending(h.paths, pending('perm-17-gone', { createdAt: T - 8_000 }));
    await writePending(h.paths, pending('perm-17-plain', { createdAt: T - 7_000 }));
    await signedApproval('perm-17-answered', { command: 'npm test' });
    let calls = 0;
    // The first reading is the listing's; by the next one (a decision) perm-17-gone has gone.
    const goneAfterListing = (): number => {
      if (++calls === 2) rmSync(h.paths.pendingFile('perm-17-gone'));
      return T;
    };
    expect(await expireStale(team(), 2_000, { now: goneAfterListing })).toEqual(['perm-17-plain']);
    expect(await ls(h.paths.resolved)).toEqual(['perm-17-plain.json']);

    await writePending(h.paths, pending('perm-17-next', { createdAt: T - 9_000 }));
    let n = 0;
    const failing = (): number => {
      if (++n === 2) throw new Error('clock stopped');
      return T;
    };
    await expect(expireStale(team(), 2_000, { now: failing })).rejects.toThrow('clock stopped');
    expect(await ls(h.paths.pending)).toEqual(['perm-17-next.json']);
  });
});

describe('clearOrphaned', () => {
  it("refuses a live worker's request (naming its pid when the record has one) unless forced; a cleared one is audited and returned as it was", async () => {
    await writePending(h.paths, pending('perm-18-pid', { workerPid: process.pid }));
    await writePending(h.paths, pending('perm-18-nopid'));
    await rejectsExactly(clearOrphaned(team(), 'perm-18-pid'), 'invalid_input', `request perm-18-pid: worker w1 is still alive (pid ${process.pid}); decide it with 'swarm approve' or 'swarm deny'`);
    await rejectsExactly(clearOrphaned(team(), 'perm-18-nopid'), 'invalid_input', `request perm-18-nopid: worker w1 is still alive; decide it with 'swarm approve' or 'swarm deny'`);
    expect(await ls(h.paths.pending)).toEqual(['perm-18-nopid.json', 'perm-18-pid.json']);
    const record = await clearOrphaned(team(), 'perm-18-pid', { force: true, now: clock });
    expect(record).toEqual(PendingRequestSchema.parse(pending('perm-18-pid', { workerPid: process.pid })));
    expect(await auditOf('perm-18-pid')).toEqual([{ event: 'cleared', id: 'perm-18-pid', at: T, worker: 'w1', toolName: 'Bash', by: 'team-lead', reason: 'worker gone' }]);
    expect(await ls(h.paths.pending)).toEqual(['perm-18-nopid.json']);
  });

  it('an unknown id is not_found, and so is a request that went between listing and clearing', async () => {
    await rejectsExactly(clearOrphaned(team(), 'perm-19-none'), 'not_found', `no pending permission request "perm-19-none"; see 'swarm permissions' for the ids`);
    await writePending(h.paths, pending('perm-19-a', { workerPid: 1 }));
    // The liveness probe runs while listing: the request goes right after it was read.
    const goneWhileListing = (): boolean => {
      rmSync(h.paths.pendingFile('perm-19-a'), { force: true });
      return false;
    };
    await rejectsExactly(clearOrphaned(team(), 'perm-19-a', { isAlive: goneWhileListing }), 'not_found', `no pending permission request "perm-19-a"; see 'swarm permissions' for the ids`);
    expect(await auditOf('perm-19-a')).toEqual([]);
  });
});

describe('sweepResolved', () => {
  const past = Date.now() - 86_400_000; // a day ago: far from the real clock, so the clock given is the one used
  const record = (id: string, resolvedAt: number): string => formatJson({ id, workerId: 'w1@t', workerName: 'w1', teamName: TEAM, toolName: 'Bash', status: 'approved', resolvedBy: 'team-lead', resolvedAt });

  it('removes records at least the limit old by resolvedAt (else by mtime), in id order, and nothing but <id>.json files', async () => {
    const dir = h.paths.resolved;
    const limit = 60_000;
    const oldMtime = new Date(past - 2 * limit);
    await writeFileAtomic(h.paths.resolvedFile('perm-20-c'), record('perm-20-c', past - 10 * limit));
    await writeFileAtomic(h.paths.resolvedFile('perm-20-a'), record('perm-20-a', past - limit));
    await writeFileAtomic(h.paths.resolvedFile('perm-20-young'), record('perm-20-young', past - limit + 1));
    await writeFileAtomic(h.paths.resolvedFile('perm-20-b'), 'not json');
    await writeFileAtomic(h.paths.resolvedFile('perm-20-d'), '{"id": 1}');
    await writeFileAtomic(h.paths.resolvedFile('perm-20-fresh'), 'not json'); // mtime now: a day after `past`
    await writeFileAtomic(path.join(dir, 'perm-20-e.json.rejected-1'), 'kept aside');
    for (const n of ['perm-20-b.json', 'perm-20-d.json', 'perm-20-e.json.rejected-1']) await fs.utimes(path.join(dir, n), oldMtime, oldMtime);
    expect(await sweepResolved(team(), { olderThanMs: limit, now: () => past })).toEqual(['perm-20-a', 'perm-20-b', 'perm-20-c', 'perm-20-d']);
    expect(await ls(dir)).toEqual(['perm-20-e.json.rejected-1', 'perm-20-fresh.json', 'perm-20-young.json']);
  });

  it('no resolved directory: nothing to do; resolved/ that is a file: that error; a symlinked resolved/: refused', async () => {
    await fs.rm(h.paths.resolved, { recursive: true, force: true });
    expect(await sweepResolved(team())).toEqual([]);
    await fs.writeFile(h.paths.resolved, 'not a directory');
    expect(await failure(sweepResolved(team()))).toMatchObject({ code: 'ENOTDIR' });
    await fs.rm(h.paths.resolved);
    const elsewhere = await tempRoot();
    await fs.writeFile(path.join(elsewhere, 'perm-21-a.json'), record('perm-21-a', 0));
    await fs.symlink(elsewhere, h.paths.resolved);
    await rejectsExactly(sweepResolved(team()), 'io', `${h.paths.resolved} is a symlink; swarm does not use files through links: replace it with a real directory (mv the files it points to into one)`);
    expect(await ls(elsewhere)).toEqual(['perm-21-a.json']);
  });
});
