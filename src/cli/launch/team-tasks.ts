// A team file's `tasks:` (team-file.ts validates them with the rest of the file): created in file
// order on the new team's list before anyone is spawned, so the first teammate to look finds them;
// their blockers (by position or subject in the file) become the new ids. A team launched again
// keeps its list: a file task whose subject is on it already is not created twice (nor changed). Owners are told with a
// task_assignment frame, as the signed leader, once they are spawned (spawning starts an inbox afresh).
import { encodeControl } from '../../protocol/control.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import type { Task } from '../../protocol/task.js';
import { sendMessage } from '../../mailbox/send.js';
import { openLeadMailbox } from '../../permissions/lead-mailbox.js';
import { TaskList } from '../../tasks/index.js';
import type { Team } from '../../team/team.js';
import { taskBlockers, type TeamFileTask } from './team-file.js';

/**
 * Create the file's tasks (no frames yet); owners spelled as in `members`; returns the ones created,
 * in file order. A task whose subject the list already holds is not created again: it stands for
 * that one (blockers included).
 */
export async function createFileTasks(team: Team, tasks: readonly TeamFileTask[], members: readonly string[]): Promise<Task[]> {
  const list = new TaskList(team);
  const blockers = taskBlockers(tasks);
  const onList = tasks.length === 0 ? [] : (await list.list()).tasks;
  const all: { task: Task; created: boolean }[] = [];
  for (const t of tasks) {
    const existing = onList.find((x) => x.subject === t.subject);
    if (existing !== undefined) {
      all.push({ task: existing, created: false });
      continue;
    }
    const task = await list.create(
      {
        subject: t.subject,
        description: t.description ?? '',
        ...(t.activeForm !== undefined ? { activeForm: t.activeForm } : {}),
        ...(t.owner !== undefined ? { owner: members.find((m) => sameName(m, t.owner!)) ?? t.owner } : {}),
      },
      LEAD_NAME,
    );
    all.push({ task, created: true });
  }
  // Blockers may come later in the file: add them once every id is known (to the new tasks only).
  for (const [i, b] of blockers.entries()) {
    const entry = all[i]!;
    if (b.length > 0 && entry.created) entry.task = (await list.update(entry.task.id, { addBlockedBy: b.map((j) => all[j]!.task.id) }, LEAD_NAME))!;
  }
  return all.filter((e) => e.created).map((e) => e.task);
}

/** Send each spawned owner its task_assignment frames; returns the number sent. */
export async function announceOwners(team: Team, tasks: readonly Task[], spawned: readonly string[], now = Date.now()): Promise<number> {
  const owned = tasks.filter((t) => t.owner !== undefined && t.owner !== LEAD_NAME && spawned.some((s) => sameName(s, t.owner!)));
  if (owned.length === 0) return 0;
  const { mailbox } = await openLeadMailbox({ team });
  for (const t of owned) {
    const frame = { type: 'task_assignment' as const, taskId: t.id, subject: t.subject, description: t.description, assignedBy: LEAD_NAME, timestamp: new Date(now).toISOString() };
    await sendMessage(mailbox, { to: t.owner!, text: encodeControl(frame) });
  }
  return owned.length;
}
