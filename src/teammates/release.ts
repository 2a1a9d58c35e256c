// A member that leaves (shutdown, kill, or a crash found by status / doctor) gives its unfinished
// tasks back (docs/protocol.md#task-list): `TaskList.release` clears their owner and sets them `pending`, and
// team-lead gets ONE plain-text message listing them, from `system` — as Claude Code's leader
// tells itself when a teammate is terminated or shuts down (same wording, so a person and an
// agent lead both know what to do next). Nothing released, nothing sent: a second call (the
// console and `swarm status` both noticing the same crash) is silent.
import { Mailbox } from '../mailbox/mailbox.js';
import { LEAD_NAME, SYSTEM_SENDER } from '../protocol/names.js';
import type { Task } from '../protocol/task.js';
import { TaskList } from '../tasks/index.js';
import type { Team } from '../team/team.js';

/** How the member left, as the notice says it. */
export type Departure = 'shut down' | 'killed' | 'crashed';

const WORDS: Record<Departure, string> = {
  'shut down': 'has shut down',
  killed: 'was terminated',
  crashed: 'has died (its pane or process is gone)',
};

/** The notice for team-lead (pure). */
export function releaseNotice(name: string, how: Departure, tasks: readonly Pick<Task, 'id' | 'subject'>[]): string {
  const list = tasks.map((t) => `#${t.id} "${t.subject}"`).join(', ');
  return (
    `${name} ${WORDS[how]}. ${tasks.length} task(s) were unassigned: ${list}. ` +
    'Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.'
  );
}

/** Release `name`'s unfinished tasks and tell team-lead which; resolves with them (empty: nothing sent). */
export async function releaseTasksOf(team: Team, name: string, how: Departure): Promise<Task[]> {
  const released = await new TaskList(team).release(name);
  if (released.length === 0) return released;
  await new Mailbox({ team }).append(LEAD_NAME, { from: SYSTEM_SENDER, text: releaseNotice(name, how, released), summary: `${name}'s tasks released` });
  return released;
}
