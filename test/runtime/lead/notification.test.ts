// What the lead hears of a teammate's idle notification (issue 34 item 5): a <task-notification>
// with the teammate, status, the task it completed, its summary and result, and its usage from its
// status file; anything else stays a <teammate-message>. Both leads word entries with forLead.
import { describe, expect, it } from 'vitest';
import { encodeControl } from '../../../src/protocol/control.js';
import { InboxMessageSchema } from '../../../src/protocol/message.js';
import { forLead } from '../../../src/runtime/lead/notification.js';
import { LeadQueue } from '../../../src/runtime/lead/queue.js';
import { TaskList } from '../../../src/tasks/index.js';
import { createTeam } from '../../../src/team/team-store.js';
import { writeStatus } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-notify-');

const AT = '2026-12-06T10:00:00.000Z';
const idle = (fields: Record<string, string>) =>
  InboxMessageSchema.parse({ from: 'w1', timestamp: AT, color: 'blue', text: encodeControl({ type: 'idle_notification', from: 'w1', timestamp: AT, ...fields }) });

describe('forLead', () => {
  it('an idle notification after a completed task: the task, the summary, the result and the usage', async () => {
    const { team } = await createTeam(root, { name: 'crew' });
    await new TaskList(team).create({ subject: 'Parse <flags>', description: 'x' }, 'team-lead');
    await writeStatus(root, 'crew', 'w1', { pid: process.pid, state: 'idle', totalTokens: 12_345, toolUses: 7, startedAt: 1_000 });
    const text = await forLead(idle({ idleReason: 'available', summary: 'Done: the parser <works>.\nTests pass.', completedTaskId: '1', completedStatus: 'completed' }), team, () => 61_000);
    expect(text).toBe(
      [
        '<task-notification>',
        '<teammate>w1</teammate>',
        '<status>completed</status>',
        '<task id="1">Parse &lt;flags></task>',
        '<summary>Done: the parser &lt;works>. Tests pass.</summary>',
        '<result>',
        'Done: the parser &lt;works>.',
        'Tests pass.',
        '</result>',
        '<usage><total_tokens>12345</total_tokens><tool_uses>7</tool_uses><duration_ms>60000</duration_ms></usage>',
        '</task-notification>',
      ].join('\n'),
    );
  });

  it('a failure says so with its reason; a turn ended without a task is idle; no status file, no usage', async () => {
    const { team } = await createTeam(root, { name: 'crew' });
    const failed = await forLead(idle({ idleReason: 'failed', failureReason: 'model call failed: 529' }), team);
    expect(failed).toContain('<status>failed</status>');
    expect(failed).toContain('<summary>model call failed: 529</summary>');
    expect(failed).not.toContain('<usage>');
    expect(await forLead(idle({ idleReason: 'available', summary: 'Waiting.' }), team)).toContain('<status>idle</status>');
  });

  it('anything else, or no team to read, stays a <teammate-message>; the queue words entries when the lead takes them, in order, each once', async () => {
    const { team } = await createTeam(root, { name: 'crew' });
    const plain = InboxMessageSchema.parse({ from: 'w1', timestamp: AT, text: 'hello' });
    expect(await forLead(plain, team)).toBe('<teammate-message teammate_id="w1">\nhello\n</teammate-message>');
    expect(await forLead(idle({ summary: 'x' }), undefined)).toMatch(/^<teammate-message teammate_id="w1" color="blue">\n\{"type":"idle_notification"/);
    const q = new LeadQueue(team);
    q.offer(plain);
    q.offer(idle({ idleReason: 'available', summary: 'Waiting.' }));
    const taken = (await q.take()).map((b) => b.text);
    expect(taken).toHaveLength(2);
    expect(taken[0]).toContain('<teammate-message');
    expect(taken[1]).toMatch(/^<task-notification>/);
    expect(await q.take()).toEqual([]);
  });
});
