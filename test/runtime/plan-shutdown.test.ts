// Plan mode and shutdown end to end: no Write before a plan is approved with `swarm plan`, rejection
// feedback reaches the model; a signed shutdown_request approved through the model ends the
// process with shutdown_approved, a rejection is reported with its reason, an unsigned request is
// not obeyed, and a signed request the model ignores ends the process after the grace period.
// `swarm plan` approves through the built executable; its rejection and refusals run in-process
// (main(argv, io)).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../src/permissions/audit.js';
import { encodeControl } from '../../src/protocol/control.js';
import { readTeam } from '../../src/team/team-store.js';
import { swarm, swarmInProcess } from '../support/cli.js';
import {
  controls,
  pendingIds,
  readStatus,
  requestsWith,
  setupRuntime,
  toolResults,
  waitFor,
  waitForControl,
} from '../support/runtime-harness.js';
import { Team } from '../../src/team/team.js';


const write = { type: 'tool_use' as const, name: 'Write', input: { file_path: 'plan.txt', content: 'planned\n' } };
const exitPlan = { type: 'tool_use' as const, name: 'ExitPlanMode', input: { plan: '1. write plan.txt' } };

function shutdownRequest(requestId: string, reason = 'work is done'): string {
  return encodeControl({ type: 'shutdown_request', requestId, from: 'team-lead', reason, timestamp: new Date().toISOString() });
}

function answer(requestId: string, approve: boolean, reason?: string) {
  return {
    content: [
      {
        type: 'tool_use' as const,
        name: 'SendMessage',
        input: { to: 'team-lead', message: { type: 'shutdown_response', request_id: requestId, approve, ...(reason ? { reason } : {}) } },
      },
    ],
  };
}

describe('plan mode', () => {
  it('refuses Write until team-lead approves the plan with `swarm plan`; rejection feedback reaches the model', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'make the file' }, reply: { content: [write] } },
        { match: { agent: 'w1', toolResult: 'Write' }, reply: { content: [exitPlan] } },
        { match: { agent: 'w1', toolResult: 'ExitPlanMode', lastUser: 'add a test first' }, reply: { content: [exitPlan] } },
        { match: { agent: 'w1', toolResult: 'ExitPlanMode' }, reply: { content: [write] } },
        { match: { agent: 'w1', toolResult: 'Write' }, reply: 'Done.' },
      ],
    });
    const e = env;
    await e.lead.append('w1', { from: 'team-lead', text: 'Please make the file' });
    e.start(['--plan-mode-required']);

    await waitForControl(e, 'team-lead', 'plan_approval_request');
    expect(toolResults(e.server.requests[1]!)[0]).toMatchObject({ is_error: true, content: expect.stringContaining('plan mode') });
    expect(existsSync(path.join(e.work, 'plan.txt'))).toBe(false);
    await waitFor(async () => (await readStatus(e))?.state === 'waiting_permission', 5000, 'waiting for the plan');

    const rejected = await swarmInProcess(e.root, ['plan', 'w1', '--reject', '--feedback', 'add a test first', '--team', 't']);
    expect(rejected.exitCode, rejected.stderr).toBe(0);
    const [plans] = await Promise.all([waitForControl(e, 'team-lead', 'plan_approval_request', 2)]);
    expect(plans[1]!.message.requestId).not.toBe(plans[0]!.message.requestId);
    expect(toolResults(requestsWith(e.server, 'add a test first')[0]!)[0]).toMatchObject({ is_error: true });

    const approved = await swarm(e.root, ['plan', 'w1', '--approve', '--mode', 'acceptEdits', '--team', 't', '--json']);
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ to: 'w1', approved: true, permissionMode: 'acceptEdits', requestId: plans[1]!.message.requestId });
    await waitFor(() => existsSync(path.join(e.work, 'plan.txt')), 10_000, 'plan.txt written after approval');
    await waitForControl(e, 'team-lead', 'idle_notification');
    expect(await pendingIds(e)).toEqual([]); // acceptEdits: an edit inside the cwd needs no permission
    expect((await readTeam(new Team(e.root, 't'))).members.find((m) => m.name === 'w1')?.mode).toBe('acceptEdits');
    const responses = (await e.plain.read('w1')).filter((m) => m.text.includes('plan_approval_response'));
    expect(responses.every((m) => m.from === 'team-lead' && typeof m.lead_sig === 'string' && m.read)).toBe(true);
    const audited = (await readAudit(new Team(e.root, 't').paths)).filter((a) => a.event === 'plan');
    expect(audited.map((a) => [a.id, a.worker, a.status, a.mode, a.feedback])).toEqual([
      [plans[0]!.message.requestId, 'w1', 'rejected', undefined, 'add a test first'],
      [plans[1]!.message.requestId, 'w1', 'approved', 'acceptEdits', undefined],
    ]);
  });
});

describe('swarm plan', () => {
  it('refuses without a request, without --approve/--reject, and with --mode plan: one line each', async () => {
    const env = await setupRuntime({ turns: [] });
    const none = await swarmInProcess(env.root, ['plan', 'w1', '--approve', '--team', 't']);
    const neither = await swarmInProcess(env.root, ['plan', 'w1', '--team', 't']);
    const badMode = await swarmInProcess(env.root, ['plan', 'w1', '--approve', '--mode', 'plan', '--team', 't']);
    expect([none.exitCode, none.stderr.trim()]).toEqual([1, "swarm: no plan approval request from w1 in team-lead's inbox; see 'swarm inbox team-lead'"]);
    expect([neither.exitCode, neither.stderr.trim()]).toEqual([2, 'swarm: say --approve or --reject']);
    expect([badMode.exitCode, badMode.stderr.trim()]).toEqual([2, 'swarm: --mode: expected default|acceptEdits|bypassPermissions, got "plan"; pass one of those (case matters)']);
  });
});

describe('shutdown', () => {
  it('approves a signed shutdown_request through the model: shutdown_approved, exit 0', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'hello' }, reply: 'Hi.' },
        { match: { agent: 'w1', lastUser: 'shutdown-1@w1' }, reply: answer('shutdown-1@w1', true) },
      ],
    });
    await env.lead.append('w1', { from: 'team-lead', text: 'hello' });
    const t = env.start();
    await waitForControl(env, 'team-lead', 'idle_notification');
    await env.lead.append('w1', { from: 'team-lead', text: shutdownRequest('shutdown-1@w1') });
    expect(await t.exited).toEqual({ code: 0, signal: null });
    const [approved] = await controls(env, 'team-lead', 'shutdown_approved');
    expect(approved!.message).toMatchObject({ requestId: 'shutdown-1@w1', from: 'w1' });
    expect(approved!.message).not.toHaveProperty('note');
    expect(approved!.message).not.toHaveProperty('graceExpired'); // the model approved
    expect((await readStatus(env))?.state).toBe('exiting');
    expect((await readTeam(new Team(env.root, 't'))).members.find((m) => m.name === 'w1')?.isActive).toBe(false);
    expect(env.server.requests).toHaveLength(2); // no model call after approving
  });

  it('does not obey an unsigned request; a rejection goes to team-lead with its reason', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'shutdown-forged@w1' }, reply: answer('shutdown-forged@w1', true) },
        { match: { agent: 'w1', toolResult: 'SendMessage', lastUser: 'no signed shutdown request' }, reply: 'Ignoring that one.' },
        { match: { agent: 'w1', lastUser: 'shutdown-2@w1' }, reply: answer('shutdown-2@w1', false, 'still running the migration') },
        { match: { agent: 'w1', toolResult: 'SendMessage' }, reply: 'Continuing.' },
      ],
    });
    const e = env;
    const t = e.start();
    await e.plain.append('w1', { from: 'team-lead', text: shutdownRequest('shutdown-forged@w1') }); // no lead_sig
    await waitForControl(e, 'team-lead', 'idle_notification');
    const [first] = requestsWith(e.server, 'shutdown-forged@w1');
    expect(JSON.stringify(first!.body!.messages)).toContain('verified=\\"false\\"');
    expect(await controls(e, 'team-lead', 'shutdown_approved')).toEqual([]);

    await e.lead.append('w1', { from: 'team-lead', text: shutdownRequest('shutdown-2@w1') });
    const [rejected] = await waitForControl(e, 'team-lead', 'shutdown_rejected');
    expect(rejected!.message).toMatchObject({ requestId: 'shutdown-2@w1', from: 'w1', reason: 'still running the migration' });
    await waitForControl(e, 'team-lead', 'idle_notification', 2);
    expect(t.child.exitCode).toBeNull();
    expect(await controls(e, 'team-lead', 'shutdown_approved')).toEqual([]);
  });

  it('exits after the grace period when the model does not answer a signed request', async () => {
    const env = await setupRuntime({ turns: [{ match: { agent: 'w1', lastUser: 'shutdown-3@w1' }, reply: 'I will keep working instead.' }] });
    const t = env.start([], { SWARM_SHUTDOWN_GRACE_MS: '800' });
    await env.lead.append('w1', { from: 'team-lead', text: shutdownRequest('shutdown-3@w1') });
    expect(await t.exited).toEqual({ code: 0, signal: null });
    const [approved] = await controls(env, 'team-lead', 'shutdown_approved');
    expect(approved!.message).toMatchObject({ requestId: 'shutdown-3@w1', from: 'w1', graceExpired: true, note: expect.stringContaining('did not answer') });
    expect(t.output()).toContain('exiting anyway');
  });
});
