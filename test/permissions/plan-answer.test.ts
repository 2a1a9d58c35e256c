// Answering a plan (permissions/plan-answer.ts): however many leaders answer the same request at
// the same instant (a console and its watcher, `swarm plan` in another shell), exactly one
// plan_approval_response reaches the teammate; the others are refused as already answered.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { answerPlan } from '../../src/permissions/plan-answer.js';
import { encodeControl, parseControl } from '../../src/protocol/control.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
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
