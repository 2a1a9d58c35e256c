// What the agent lead needs to know about its team between turns (docs/protocol.md#agent-lead): who is still working
// (a live process whose status file says starting, working, or waiting for a permission or at the
// team's budget; a member without a status file, e.g. a real `claude` teammate, by config.json's
// isActive; a live teammate with unread messages it will take up as a turn: it is about to work, and
// so is a hibernating one: it is woken for them; a hibernating one with nothing waiting is idle),
// which tasks are still open (pending or in_progress; Claude Code's internal ones left out), and how
// many entries for the lead wait in team-lead's inbox, not taken by its consumer yet.
// The team's spend is team/spend.ts's.
import { Mailbox } from '../../mailbox/mailbox.js';
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { isProcessAlive } from '../../storage/pid.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import type { Task } from '../../protocol/task.js';
import { isInternalTask, TaskList } from '../../tasks/index.js';
import { statusOf } from '../../team/spend.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import type { LeadVoice } from './prompt.js';
import { staysWithPerson } from './queue.js';

const ACTIVE_STATES = new Set(['starting', 'working', 'waiting_permission', 'waiting_budget']);

export interface TeamState {
  /** Teammates (not the lead) on the roster. */
  teammates: string[];
  /** Of those, the ones still working. */
  working: string[];
  /** Tasks not completed. */
  open: Task[];
  /** Entries in team-lead's inbox for the lead (not the person's questions) that its consumer has not taken yet. */
  unheard: number;
}

/** An unread entry its teammate takes up as a turn: anything but a permission answer (those wait for the permission waiter). */
function wakes(m: InboxMessage): boolean {
  const parsed = parseControl(m.text);
  return parsed.kind !== 'control' || parsed.message.type !== 'permission_response';
}

export async function readTeamState(team: Team): Promise<TeamState> {
  const config = await readTeam(team);
  const teammates = config.members.filter((m) => !sameName(m.name, LEAD_NAME));
  const working: string[] = [];
  const mailbox = new Mailbox({ team });
  for (const m of teammates) {
    const s = await statusOf(team, m.name);
    const active = s === undefined ? m.isActive === true : ACTIVE_STATES.has(s.state) && isProcessAlive(s.pid);
    // Live with work waiting, or hibernating with work waiting (its waker starts it: docs/hibernation.md).
    const waking = s !== undefined && ((s.state !== 'exiting' && isProcessAlive(s.pid)) || m.hibernatedAt !== undefined);
    const woken = !active && waking && (await mailbox.unread(m.name).catch(() => [])).some(wakes);
    if (active || woken) working.push(m.name);
  }
  const { tasks } = await new TaskList(team).list();
  const open = tasks.filter((t) => t.status !== 'completed' && !isInternalTask(t));
  return { teammates: teammates.map((m) => m.name), working, open, unheard: await unheardByLead(team, mailbox) };
}

/** How many entries for the lead (not the person's questions) wait unread in team-lead's inbox. */
export async function unheardByLead(team: Team, mailbox = new Mailbox({ team })): Promise<number> {
  return (await mailbox.unread(LEAD_NAME).catch(() => [])).filter((m) => !staysWithPerson(m)).length;
}

/** What the lead is told when tasks are open and nobody works on them: nothing will happen by itself. */
export function nudgeText(state: TeamState, v: LeadVoice): string {
  const open = state.open.map((t) => `#${t.id} ${t.status}${t.owner ? ` (${t.owner})` : ''}: ${t.subject}`).join('; ');
  const who = state.teammates.length === 0 ? 'There are no teammates.' : `Teammates, all idle: ${state.teammates.join(', ')}.`;
  return (
    `[swarm] The run is not finished: ${state.open.length} task${state.open.length === 1 ? ' is' : 's are'} still open (${open}) and no teammate is working, so nothing will happen by itself. ${who} ` +
    `Spawn a teammate (${v.spawn}), give an idle teammate the work (${v.send}, or ${v.taskUpdate} with owner), or complete/delete tasks that are no longer needed.`
  );
}
