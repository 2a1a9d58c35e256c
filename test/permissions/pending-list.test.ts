// isOrphaned: a pending request nobody will act on (its worker gone from the roster, or its pid
// dead). A worker on another machine (`host`, the ssh backend) is never judged by a pid check
// here: the same number on this machine is some other process, or none. Materialising inbox
// frames: made once, never bringing back what was ended, even while the list waited for the lock.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { appendAudit, readAudit } from '../../src/permissions/audit.js';
import { writePending } from '../../src/permissions/pending.js';
import { isOrphaned, isWorkerName, listPending, materialiseInboxRequests } from '../../src/permissions/pending-list.js';
import { encodeControl } from '../../src/protocol/control.js';
import type { Member, TeamConfig } from '../../src/protocol/config.js';
import type { PendingRequest } from '../../src/protocol/permission.js';
import { addMember, createTeam, readTeam } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { withFileLock } from '../../src/storage/lock.js';
import { ticketsInLine } from '../support/held-lock.js';
import { pendingRecord } from '../support/pending-record.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-pending-list-');

const member = (name: string, extra: Partial<Member> = {}): Member => ({
  agentId: `${name}@t`, name, joinedAt: 0, tmuxPaneId: '%1', cwd: '/w', subscriptions: [], pid: 4242, ...extra,
});
const config = (members: Member[]): TeamConfig => ({ name: 't', createdAt: 0, leadAgentId: 'team-lead@t', leadSessionId: '', members });
const request = (workerName: string): PendingRequest =>
  ({ id: 'perm-1-a', workerId: `${workerName}@t`, workerName, teamName: 't', toolName: 'Bash', toolUseId: 'toolu_1', description: '', input: {}, permissionSuggestions: [], status: 'pending', createdAt: 0, workerPid: 4242 }) as PendingRequest;

describe('isOrphaned', () => {
  it('a local worker: by its pid; a worker no longer a member: orphaned', () => {
    expect(isOrphaned(config([member('w1')]), request('w1'), () => false)).toBe(true);
    expect(isOrphaned(config([member('w1')]), request('w1'), () => true)).toBe(false);
    expect(isOrphaned(config([]), request('w1'), () => true)).toBe(true);
  });

  it('a worker on another machine is not judged by a local pid check', () => {
    const asked: number[] = [];
    expect(isOrphaned(config([member('w1', { host: 'build1', backendType: 'ssh' })]), request('w1'), (pid) => (asked.push(pid), false))).toBe(false);
    expect(asked).toEqual([]);
  });
});

const T0 = Date.parse('2026-12-05T00:00:00.000Z');
const frame = (id: string, extra: Record<string, unknown> = {}) =>
  encodeControl({ type: 'permission_request', request_id: id, agent_id: 'w1@p', tool_name: 'Bash', tool_use_id: 'toolu_7', description: 'run it', input: { command: 'make' }, permission_suggestions: [], ...extra } as never);

async function teamWithWorker(): Promise<{ team: Team; mailbox: Mailbox }> {
  const { team } = await createTeam(root, { name: 'p' });
  await addMember(team, { name: 'w1', cwd: '/work/w1', color: 'green' });
  await addMember(team, { name: 'w2', cwd: 'relative/dir' });
  return { team, mailbox: new Mailbox({ team }) };
}
const ask = async (mailbox: Mailbox, from: string, text: string, at = T0, color?: string) =>
  mailbox.append('team-lead', { ...mailbox.makeEntry({ from, text, ...(color ? { color } : {}) }), timestamp: new Date(at).toISOString() });

describe('isWorkerName', () => {
  it('is a member name that is not reserved, in any case', () => {
    expect(isWorkerName('w1')).toBe(true);
    for (const name of ['team-lead', 'Team-Lead', 'x/y', '']) expect(isWorkerName(name), name).toBe(false);
  });
});

describe('materialising inbox requests (a Claude Code teammate writes only the frame)', () => {
  it('makes a pending record from the frame, with the member\'s name, colour and absolute cwd, and the entry\'s time', async () => {
    const { team, mailbox } = await teamWithWorker();
    await ask(mailbox, 'W1', frame('perm-1-aaa'), T0 + 5);
    await ask(mailbox, 'w2', frame('perm-2-bbb', { agent_id: 'w2@p' }), T0 + 1, 'purple');
    expect(await materialiseInboxRequests(team, await readTeam(team), () => 99)).toEqual(['perm-1-aaa', 'perm-2-bbb']);
    const views = await listPending(team, { now: () => T0 + 1000, isAlive: () => true });
    expect(views.map((v) => v.id)).toEqual(['perm-2-bbb', 'perm-1-aaa']); // oldest first
    expect(views[1]).toMatchObject({
      id: 'perm-1-aaa', workerId: 'w1@p', workerName: 'w1', workerColor: 'green', teamName: 'p', toolName: 'Bash', toolUseId: 'toolu_7',
      description: 'run it', input: { command: 'make' }, status: 'pending', createdAt: T0 + 5, source: 'inbox', cwd: '/work/w1', ageMs: 995, orphaned: false,
    });
    expect(views[0]).toMatchObject({ workerName: 'w2', workerColor: 'purple' });
    expect(views[0]).not.toHaveProperty('cwd'); // a relative cwd is not passed on
    expect(await materialiseInboxRequests(team, await readTeam(team))).toEqual([]); // made once
  });

  it('makes a record for a worker not in the roster too, under its own name (then listed as orphaned)', async () => {
    const { team, mailbox } = await teamWithWorker();
    await ask(mailbox, 'w9', frame('perm-1-gone', { agent_id: 'w9@p' }), T0);
    expect(await materialiseInboxRequests(team, await readTeam(team))).toEqual(['perm-1-gone']);
    const [view] = await listPending(team, { now: () => T0 });
    expect(view).toMatchObject({ workerName: 'w9', workerId: 'w9@p', orphaned: true });
    expect(view).not.toHaveProperty('cwd');
    expect(view).not.toHaveProperty('workerColor');
  });

  it('ignores plain words, other frames, frames from team-lead or a reserved name, and unsafe ids', async () => {
    const { team, mailbox } = await teamWithWorker();
    await ask(mailbox, 'w1', 'please approve');
    await ask(mailbox, 'w1', encodeControl({ type: 'idle_notification', from: 'w1', timestamp: new Date(T0).toISOString() } as never));
    await ask(mailbox, 'team-lead', frame('perm-3-ccc'));
    await ask(mailbox, 'w1', frame('../../escape'));
    expect(await materialiseInboxRequests(team, await readTeam(team))).toEqual([]);
    expect(await fs.readdir(team.paths.pending).catch(() => [])).toEqual([]);
  });

  it('never brings back a request that was decided, ended in the audit log, is pending already, or that a Claude Code leader answered', async () => {
    const { team, mailbox } = await teamWithWorker();
    for (const id of ['perm-1-res', 'perm-2-aud', 'perm-3-pen', 'perm-4-ans', 'perm-5-new']) await ask(mailbox, 'w1', frame(id));
    await fs.mkdir(team.paths.resolved, { recursive: true });
    await fs.writeFile(team.paths.resolvedFile('perm-1-res'), '{}');
    await appendAudit(team.paths, { event: 'cancelled', id: 'perm-2-aud', at: T0 });
    await writePending(team.paths, { ...pendingOf('perm-3-pen'), source: 'inbox' });
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'permission_response', request_id: 'perm-4-ans', subtype: 'success', response: {} } as never) });
    expect(await materialiseInboxRequests(team, await readTeam(team))).toEqual(['perm-5-new']);
  });

  it('never brings back a request decided while the list waited for its lock: what ended it is read again under the lock', async () => {
    const { team, mailbox } = await teamWithWorker();
    const id = 'perm-6-race';
    await ask(mailbox, 'w1', frame(id));
    const lock = team.paths.pendingFile(id);
    let listing!: Promise<unknown>;
    await withFileLock(lock, async () => {
      listing = listPending(team, { now: () => T0 + 10, isAlive: () => true });
      await waitFor(async () => (await ticketsInLine(lock)) > 0, 10_000, 'the list queued for the request lock');
      // A decider holds it: its decision is audited (its resolved file, already taken, is gone).
      await appendAudit(team.paths, { event: 'decision', id, at: T0, worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' });
    });
    expect(await listing).toEqual([]);
    expect(await fs.readdir(team.paths.pending)).toEqual([]);
  });

  it("ends a listed inbox request that a Claude Code leader answered, audited as that leader's decision", async () => {
    const { team, mailbox } = await teamWithWorker();
    await ask(mailbox, 'w1', frame('perm-1-yes'));
    await ask(mailbox, 'w1', frame('perm-2-no'));
    await materialiseInboxRequests(team, await readTeam(team));
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'permission_response', request_id: 'perm-1-yes', subtype: 'success', response: {} } as never) });
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'permission_response', request_id: 'perm-2-no', subtype: 'error', error: 'no' } as never) });
    expect(await listPending(team, { now: () => T0 + 10 })).toEqual([]);
    expect(await readAudit(team.paths)).toEqual([
      expect.objectContaining({ event: 'decision', id: 'perm-1-yes', status: 'approved', by: 'team-lead (Claude Code)', worker: 'w1', toolName: 'Bash', at: T0 + 10 }),
      expect.objectContaining({ event: 'decision', id: 'perm-2-no', status: 'rejected', by: 'team-lead (Claude Code)' }),
    ]);
    // A record the worker wrote itself (not from the inbox) is not ended that way.
    await writePending(team.paths, pendingOf('perm-3-own'));
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'permission_response', request_id: 'perm-3-own', subtype: 'success', response: {} } as never) });
    expect((await listPending(team)).map((v) => v.id)).toEqual(['perm-3-own']);
  });
});

describe('listPending', () => {
  it('reports a corrupt record and one whose id is not its name, and lists the rest, oldest first then by id', async () => {
    const { team } = await teamWithWorker();
    await writePending(team.paths, { ...pendingOf('perm-2-b'), createdAt: T0 });
    await writePending(team.paths, { ...pendingOf('perm-1-a'), createdAt: T0 });
    await writePending(team.paths, { ...pendingOf('perm-0-z'), createdAt: T0 + 1 });
    await fs.writeFile(team.paths.pendingFile('perm-3-c'), '{broken');
    await fs.writeFile(team.paths.pendingFile('perm-4-d'), JSON.stringify(pendingOf('perm-9-x')));
    const problems: string[] = [];
    const views = await listPending(team, { now: () => T0 + 500, isAlive: () => false, onProblem: (m) => problems.push(m) });
    expect(views.map((v) => [v.id, v.ageMs])).toEqual([['perm-1-a', 500], ['perm-2-b', 500], ['perm-0-z', 499]]);
    expect(views.every((v) => v.orphaned === false)).toBe(true); // no pid known: not judged dead
    expect(problems).toEqual([
      expect.stringMatching(/perm-3-c\.json was corrupt/),
      `${team.paths.pendingFile('perm-4-d')} holds request "perm-9-x", not "perm-4-d"; ignored`,
    ]);
    await fs.writeFile(team.paths.pendingFile('perm-5-e'), '{broken again');
    await expect(listPending(team)).resolves.toHaveLength(3); // no reporter: skipped quietly
  });

  it('a record that cannot be read is an error, not a problem to skip', async () => {
    const { team } = await teamWithWorker();
    await fs.mkdir(team.paths.pendingFile('perm-1-dir'), { recursive: true });
    const problems: string[] = [];
    await expect(listPending(team, { onProblem: (m) => problems.push(m) })).rejects.toMatchObject({ kind: 'io' });
    expect(problems).toEqual([]);
  });
});

function pendingOf(id: string): PendingRequest {
  return pendingRecord(id, { teamName: 'p', toolUseId: 'toolu_7', createdAt: T0 });
}
