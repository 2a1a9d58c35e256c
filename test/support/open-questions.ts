// The questions a leader that died before answering leaves behind (a SIGKILLed `swarm run -p`, a
// killed console), for the tests of what the next console or run shows: in team-lead's inbox,
// already read (taken by the dead leader), a permission request from w1 and a plan request from w2;
// and an older plan request from w1 that was answered (never to be asked again). The team is
// perm-harness's (members w1 and w2).
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { encodeControl } from '../../src/protocol/control.js';
import { newPermissionId } from '../../src/protocol/ids.js';
import type { Team } from '../../src/team/team.js';

export interface LeftOpen {
  permissionId: string;
  planId: string;
  answeredPlanId: string;
}

export function permissionFrame(id: string, command: string): string {
  return encodeControl({ type: 'permission_request', request_id: id, agent_id: 'w1', tool_name: 'Bash', tool_use_id: `toolu_${id}`, description: 'run it', input: { command }, permission_suggestions: [] });
}

function planFrame(from: string, requestId: string, plan: string, at: number): string {
  return encodeControl({ type: 'plan_approval_request', from, timestamp: new Date(at).toISOString(), planFilePath: '', planContent: plan, requestId });
}

/** Leave the questions in `team`'s files. Oldest open one first: w2's plan (asked a minute ago), then w1's permission request (now). */
export async function questionsLeftOpen(team: Team): Promise<LeftOpen> {
  const mailbox = new Mailbox({ team });
  const t = Date.now() - 60_000;
  const answeredPlanId = `plan_approval-${t}@w1@${team.name}`;
  const permissionId = newPermissionId();
  const planId = `plan_approval-${t + 2}@w2@${team.name}`;
  await mailbox.append('team-lead', { from: 'w1', text: planFrame('w1', answeredPlanId, '1. the answered plan', t) });
  await mailbox.append('w1', { from: 'team-lead', text: encodeControl({ type: 'plan_approval_response', requestId: answeredPlanId, approved: true, timestamp: new Date(t).toISOString() }) });
  await mailbox.append('team-lead', { from: 'w1', text: permissionFrame(permissionId, 'npm run old-check') });
  await mailbox.append('team-lead', { from: 'w2', text: planFrame('w2', planId, '1. the open plan', t + 2) });
  await mailbox.consume('team-lead'); // taken by the leader that died
  return { permissionId, planId, answeredPlanId };
}
