// What changed in the team's task list between two listings (docs/protocol.md#task-list), for the
// fronts that report it as it happens: `swarm run -p` prints each change as a progress line, and a
// Claude Code lead hears teammates' claims and completions through swarm mcp's wait_for_messages.
import { oneLine } from '../../protocol/text.js';
import type { Task } from '../../protocol/task.js';

export type TaskChange = { kind: 'created' | 'claimed' | 'done'; task: Task };

/** Each change from `before` (by id) to `now`, in the order of `now`. */
export function taskChanges(before: ReadonlyMap<string, Task>, now: readonly Task[]): TaskChange[] {
  const out: TaskChange[] = [];
  for (const t of now) {
    const b = before.get(t.id);
    if (b === undefined) out.push({ kind: 'created', task: t });
    if (t.status === 'in_progress' && (b?.status !== 'in_progress' || b.owner !== t.owner)) out.push({ kind: 'claimed', task: t });
    if (t.status === 'completed' && b?.status !== 'completed') out.push({ kind: 'done', task: t });
  }
  return out;
}

/** "task #1 created: …" / "task #1 claimed by alice" / "task #1 done (alice)". */
export function taskChangeLine(c: TaskChange): string {
  const t = c.task;
  switch (c.kind) {
    case 'created':
      return `task #${t.id} created: ${oneLine(t.subject, 80)}`;
    case 'claimed':
      return `task #${t.id} claimed by ${t.owner ?? 'nobody'}`;
    case 'done':
      return `task #${t.id} done${t.owner ? ` (${t.owner})` : ''}`;
  }
}
