// Answering a plan (permissions/plan-answer.ts): however many leaders answer the same request at
// the same instant (a console and its watcher, `swarm plan` in another shell), exactly one
// plan_approval_response reaches the teammate; the others are refused as already answered.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { readAudit } from '../../src/permissions/audit.js';
import { loadLeadKey } from '../../src/permissions/keys.js';
import { answerPlan, latestPlanRequest, openPlanRequests } from '../../src/permissions/plan-answer.js';
import { verifyEntry } from '../../src/permissions/signing.js';
import { encodeControl, parseControl } from '../../src/protocol/control.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import type { InboxMessage } from '../../src/protocol/message.js';
import { addMember, createTeam, readTeam } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { useTempRoot } from '../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-plan-answer-');

describe('answerPlan', () => {
  it('six concurrent answers to one plan: one response is sent, five are refused as already answered', async () => {
    const { team } = await createTeam(root, { name: 'p' });
    await addMember(team, { name: 'w1', cwd: root });
    const mailbox = new Mailbox({ team });
    const request = encodeControl({ type: 'plan_approval_request', from: 'w1', timestamp: new Date().toISOString(), planFilePath: '', planContent: '1. do it', requestId: 'plan-1@w1' });
    await mailbox.append('team-lead', { from: 'w1', text: request });

    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => answerPlan(team, 'w1', { approve: i % 2 === 0 })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(isSwarmError(r.reason, 'already_resolved')).toBe(true);
    const responses = (await mailbox.read('w1')).filter((m) => {
      const p = parseControl(m.text);
      return p.kind === 'control' && p.message.type === 'plan_approval_response';
    });
    expect(responses).toHaveLength(1);
  });
});

const NOW = Date.parse('2026-12-05T01:00:00.000Z');
const planRequest = (requestId: string, from = 'w1') =>
  encodeControl({ type: 'plan_approval_request', from, timestamp: new Date(NOW).toISOString(), planFilePath: '', planContent: '1. do it', requestId });

async function teamWithPlan(requestId = 'plan-1@w1'): Promise<{ team: Team; mailbox: Mailbox }> {
  const { team } = await createTeam(root, { name: 'p' });
  await addMember(team, { name: 'w1', cwd: root });
  const mailbox = new Mailbox({ team });
  await mailbox.append('team-lead', { from: 'w1', text: planRequest(requestId) });
  return { team, mailbox };
}

function responsesIn(entries: readonly InboxMessage[]): { entry: InboxMessage; frame: Record<string, unknown> }[] {
  return entries.flatMap((entry) => {
    const p = parseControl(entry.text);
    return p.kind === 'control' && p.message.type === 'plan_approval_response' ? [{ entry, frame: p.message as Record<string, unknown> }] : [];
  });
}

describe('answerPlan: what it sends and records', () => {
  it('an approval with a mode: a signed response with the mode, the request marked read, an audit line, and the result', async () => {
    const { team, mailbox } = await teamWithPlan();
    const result = await answerPlan(team, 'W1', { approve: true, mode: 'acceptEdits', now: () => NOW });
    const [sent] = responsesIn(await mailbox.read('w1'));
    expect(sent!.frame).toEqual({ type: 'plan_approval_response', requestId: 'plan-1@w1', approved: true, timestamp: '2026-12-05T01:00:00.000Z', permissionMode: 'acceptEdits' });
    expect(sent!.entry).toMatchObject({ from: 'team-lead', summary: 'plan approved' });
    expect(verifyEntry(sent!.entry, (await loadLeadKey(team)).verifyKey)).toBe(true);
    expect(result).toEqual({ requestId: 'plan-1@w1', to: 'w1', approved: true, msg_id: sent!.entry.msg_id, permissionMode: 'acceptEdits' });
    expect((await mailbox.read('team-lead')).map((m) => m.read)).toEqual([true]);
    expect(await readAudit(team.paths)).toEqual([
      expect.objectContaining({ event: 'plan', id: 'plan-1@w1', at: NOW, worker: 'w1', status: 'approved', by: 'team-lead', mode: 'acceptEdits' }),
    ]);
  });

  it('a rejection with feedback: no mode, the feedback in the response and the audit line', async () => {
    const { team, mailbox } = await teamWithPlan();
    const result = await answerPlan(team, 'w1', { approve: false, feedback: 'split step 2', now: () => NOW });
    const [sent] = responsesIn(await mailbox.read('w1'));
    expect(sent!.frame).toEqual({ type: 'plan_approval_response', requestId: 'plan-1@w1', approved: false, feedback: 'split step 2', timestamp: '2026-12-05T01:00:00.000Z' });
    expect(sent!.entry.summary).toBe('plan rejected');
    expect(result).toEqual({ requestId: 'plan-1@w1', to: 'w1', approved: false, msg_id: sent!.entry.msg_id });
    const [audit] = await readAudit(team.paths);
    expect(audit).toMatchObject({ status: 'rejected', feedback: 'split step 2' });
    expect(audit).not.toHaveProperty('mode');
  });

  it('an approval without mode or feedback carries neither', async () => {
    const { team, mailbox } = await teamWithPlan();
    const result = await answerPlan(team, 'w1', { approve: true });
    const [sent] = responsesIn(await mailbox.read('w1'));
    expect(Object.keys(sent!.frame).sort()).toEqual(['approved', 'requestId', 'timestamp', 'type']);
    expect(result).not.toHaveProperty('permissionMode');
  });

  it('refuses a mode without approval, the plan mode, and a mode it does not know, before anything is sent', async () => {
    const { team, mailbox } = await teamWithPlan();
    await expect(answerPlan(team, 'w1', { approve: false, mode: 'acceptEdits' })).rejects.toMatchObject({ kind: 'invalid_input', message: '--mode only goes with --approve' });
    await expect(answerPlan(team, 'w1', { approve: true, mode: 'plan' })).rejects.toMatchObject({ kind: 'invalid_input' });
    await expect(answerPlan(team, 'w1', { approve: true, mode: 'yolo' })).rejects.toMatchObject({ kind: 'invalid_input' });
    expect(responsesIn(await mailbox.read('w1'))).toEqual([]);
  });

  it('says where to look when there is no request, and answers a newer request after an older one', async () => {
    const { team } = await createTeam(root, { name: 'p' });
    await addMember(team, { name: 'w1', cwd: root });
    await expect(answerPlan(team, 'w1', { approve: true })).rejects.toMatchObject({
      kind: 'not_found',
      message: "no plan approval request from w1 in team-lead's inbox; see 'swarm inbox team-lead'",
    });
    const mailbox = new Mailbox({ team });
    await mailbox.append('team-lead', { from: 'w1', text: planRequest('plan-1@w1') });
    await answerPlan(team, 'w1', { approve: false });
    await expect(answerPlan(team, 'w1', { approve: true })).rejects.toMatchObject({ kind: 'already_resolved', message: "w1's plan plan-1@w1 is already answered" });
    await mailbox.append('team-lead', { from: 'w1', text: planRequest('plan-2@w1') });
    expect((await answerPlan(team, 'w1', { approve: true })).requestId).toBe('plan-2@w1');
  });
});

describe('answerPlan: what counts as answered, and what it touches', () => {
  it('only a plan_approval_response from team-lead for this request counts as an answer', async () => {
    const { team, mailbox } = await teamWithPlan();
    const response = (requestId: string) => encodeControl({ type: 'plan_approval_response', requestId, approved: true, timestamp: new Date(NOW).toISOString() });
    await mailbox.append('w1', { from: 'w1', text: response('plan-1@w1') }); // not from team-lead
    await mailbox.append('w1', { from: 'team-lead', text: response('plan-0@w1') }); // another request
    await mailbox.append('w1', { from: 'team-lead', text: 'plan-1@w1 looks fine' }); // plain words
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'shutdown_request', requestId: 'plan-1@w1', from: 'team-lead', reason: 'x', timestamp: new Date(NOW).toISOString() } as never) }); // another kind of frame
    await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'idle_notification', from: 'team-lead', timestamp: new Date(NOW).toISOString() } as never) });
    expect((await answerPlan(team, 'w1', { approve: true })).requestId).toBe('plan-1@w1');
  });

  it("marks only the answered request read in team-lead's inbox, stamps the response with the given clock, and carries the lead's colour", async () => {
    const { team, mailbox } = await teamWithPlan();
    await mailbox.append('team-lead', { from: 'w1', text: 'something else to read' });
    await answerPlan(team, 'w1', { approve: true, mode: 'bypassPermissions', now: () => NOW });
    expect((await mailbox.read('team-lead')).map((m) => [m.text.startsWith('{') ? 'request' : m.text, m.read])).toEqual([
      ['request', true],
      ['something else to read', false],
    ]);
    const [sent] = responsesIn(await mailbox.read('w1'));
    expect(sent!.entry.timestamp).toBe(new Date(NOW).toISOString());
    const leadColor = (await readTeam(team)).members.find((m) => m.name === 'team-lead')?.color;
    expect(leadColor).toEqual(expect.any(String));
    expect(sent!.entry.color).toBe(leadColor);
    expect(sent!.frame.permissionMode).toBe('bypassPermissions');
  });

  it('names the flag in a bad mode, and takes the default mode', async () => {
    const { team } = await teamWithPlan();
    await expect(answerPlan(team, 'w1', { approve: true, mode: 'yolo' })).rejects.toThrow(/--mode/);
    expect((await answerPlan(team, 'w1', { approve: true, mode: 'default' })).permissionMode).toBe('default');
  });
});

describe('latestPlanRequest', () => {
  it("takes the named teammate's newest request, whatever the case of its name, past other entries", () => {
    const entry = (from: string, text: string): InboxMessage => ({ from, text, timestamp: new Date(NOW).toISOString(), read: false });
    const entries = [
      entry('w1', planRequest('plan-1@w1')),
      entry('w1', planRequest('plan-2@w1')),
      entry('w2', planRequest('plan-9@w2', 'w2')),
      entry('w1', 'plain words'),
      entry('w1', encodeControl({ type: 'idle_notification', from: 'w1', timestamp: new Date(NOW).toISOString() })),
    ];
    expect(latestPlanRequest(entries, 'W1')?.request.requestId).toBe('plan-2@w1');
    expect(latestPlanRequest(entries, 'w2')?.entry).toBe(entries[2]);
    expect(latestPlanRequest(entries, 'w3')).toBeUndefined();
  });
});

describe('openPlanRequests', () => {
  it("lists each teammate's latest plan request that nobody answered, read or not, oldest first; answered ones (response or audit line) and non-members never", async () => {
    const { team } = await createTeam(root, { name: 'p' });
    for (const name of ['w1', 'w2', 'w3', 'w4']) await addMember(team, { name, cwd: root });
    const mailbox = new Mailbox({ team });
    const ask = (from: string, requestId: string, at: number) =>
      mailbox.append('team-lead', { from, text: encodeControl({ type: 'plan_approval_request', from, timestamp: new Date(at).toISOString(), planFilePath: '', planContent: '1. do it', requestId }) });
    await ask('w1', 'plan-1@w1', NOW + 20); // superseded by its newer one below
    await ask('w2', 'plan-2@w2', NOW + 10); // taken by a leader that died (read below): still open
    await ask('w3', 'plan-3@w3', NOW); // answered with a response frame only (as a Claude Code leader does: no audit line)
    await ask('w4', 'plan-4@w4', NOW); // answered, its response gone (archived): the audit line says so
    await ask('gone', 'plan-5@gone', NOW); // not a member
    await mailbox.consume('team-lead');
    await ask('w1', 'plan-6@w1', NOW + 30); // unread
    await mailbox.append('w3', { from: 'team-lead', text: encodeControl({ type: 'plan_approval_response', requestId: 'plan-3@w3', approved: true, timestamp: new Date(NOW).toISOString() }) });
    await answerPlan(team, 'w4', { approve: false });
    await mailbox.clear('w4');

    const open = await openPlanRequests(team);
    expect(open.map((p) => [p.from, p.request.requestId, p.at])).toEqual([
      ['w2', 'plan-2@w2', NOW + 10],
      ['w1', 'plan-6@w1', NOW + 30],
    ]);
  });
});
