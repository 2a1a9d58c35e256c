// Hibernation, the teammate's side (docs/hibernation.md): idle longer than its `hibernateAfterMs`
// (config.json: the member's own, else the team's `swarm.hibernateAfterMs`; unset: never) and owing
// nothing — no unread inbox entry, no task of its in progress, no Bash process of its still running
// (a question is only ever asked inside a turn, so an idle teammate has none pending) — the agent
// loop ends and the process exits as hibernating (exit.ts: config.json `hibernatedAt`, isActive
// false, its conversation kept in logs/<name>.jsonl). Whoever leads the team wakes it through the
// resume path on its next inbox entry (runtime/lead/waker.ts).
import type { Mailbox } from '../mailbox/mailbox.js';
import type { TaskList } from '../tasks/task-list.js';
import { findMember, readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { ProcessGroups } from './tools/process-groups.js';

/** What the agent loop asks while idle (agent-loop.ts `hibernate`). */
export interface HibernationRule {
  /** How long idle before hibernating; undefined: never (read again each time the loop goes idle). */
  afterMs(): Promise<number | undefined>;
  /** What exiting now would lose or leave waiting (`task #3 is in progress`); undefined: nothing. */
  owes(): Promise<string | undefined>;
}

export interface HibernationDeps {
  team: Team;
  name: string;
  mailbox: Pick<Mailbox, 'unread'>;
  tasks: Pick<TaskList, 'unfinishedOf'>;
  processes: Pick<ProcessGroups, 'running'>;
}

/** The member's own setting, else the team's: the one rule of who hibernates when. */
export async function hibernateAfterMs(team: Team, name: string): Promise<number | undefined> {
  const config = await readTeam(team);
  return findMember(config, name)?.hibernateAfterMs ?? config.swarm?.hibernateAfterMs;
}

export function hibernationRule(d: HibernationDeps): HibernationRule {
  return {
    afterMs: () => hibernateAfterMs(d.team, d.name),
    owes: async () => {
      const running = d.processes.running.length;
      if (running > 0) return `${running} Bash process${running === 1 ? ' is' : 'es are'} still running`;
      const unread = (await d.mailbox.unread(d.name)).length;
      if (unread > 0) return `${unread} inbox entr${unread === 1 ? 'y is' : 'ies are'} unread`;
      const busy = (await d.tasks.unfinishedOf(d.name)).find((t) => t.status === 'in_progress');
      return busy === undefined ? undefined : `task #${busy.id} is in progress`;
    },
  };
}
