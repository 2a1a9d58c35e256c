// How an entry of team-lead's inbox reads to the lead (docs/run.md#what-the-lead-hears), for both
// leads (queue.ts for swarm's own, swarm mcp's wait_for_messages for a Claude Code lead): a
// teammate's idle notification — the end of its turn, a task done, or its failure — becomes a
// <task-notification> with the teammate, the status, the task it completed, its summary (first
// line) and result (its last words), and its usage from its status file (total tokens, tool uses,
// and how long it has run); every other entry is a <teammate-message> (runtime/incoming.ts).
// Each entry is handed to the lead once by its queue; this only words it.
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { oneLine } from '../../protocol/text.js';
import { TaskList } from '../../tasks/index.js';
import { statusOf } from '../../team/spend.js';
import type { Team } from '../../team/team.js';
import { wrapForModel } from '../incoming.js';

/** `<` and `&` escaped: a teammate's words cannot close the notification's tags. */
function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** The entry as the lead reads it; `team` unset: as a plain <teammate-message> (no files to read). */
export async function forLead(m: InboxMessage, team: Team | undefined, now: () => number = Date.now): Promise<string> {
  const parsed = parseControl(m.text);
  if (team === undefined || parsed.kind !== 'control' || parsed.message.type !== 'idle_notification' || sameName(m.from, LEAD_NAME)) return wrapForModel(m);
  const idle = parsed.message;
  const status = await statusOf(team, m.from).catch(() => undefined);
  const task = idle.completedTaskId === undefined ? undefined : await new TaskList(team).get(idle.completedTaskId).catch(() => undefined);
  const state = idle.idleReason === 'failed' ? 'failed' : idle.completedTaskId !== undefined ? 'completed' : 'idle';
  const words = idle.idleReason === 'failed' ? (idle.failureReason ?? '') : (idle.summary ?? '');
  const lines = [
    '<task-notification>',
    `<teammate>${escape(m.from)}</teammate>`,
    `<status>${state}</status>`,
    ...(idle.completedTaskId === undefined ? [] : [`<task id="${escape(idle.completedTaskId)}">${escape(task?.subject ?? '')}</task>`]),
    `<summary>${escape(oneLine(words, 200))}</summary>`,
    ...(words.length > 0 ? [`<result>\n${escape(words)}\n</result>`] : []),
    ...(status === undefined
      ? []
      : [
          `<usage><total_tokens>${status.totalTokens}</total_tokens><tool_uses>${status.toolUses}</tool_uses>` +
            `${status.startedAt === undefined ? '' : `<duration_ms>${Math.max(0, now() - status.startedAt)}</duration_ms>`}</usage>`,
        ]),
    '</task-notification>',
  ];
  return lines.join('\n');
}
