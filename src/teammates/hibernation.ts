// Hibernation, the team's side (docs/hibernation.md): which hibernating members are due to wake,
// read from the files. A member hibernates by itself (runtime/hibernation.ts: config.json
// `hibernatedAt`, its process gone); it is due to wake when
//   message  its inbox has an unread entry (a message, a task assignment, a broadcast, a shutdown
//            request from a leader that is not swarm's — swarm's own stop removes it asleep:
//            stop.ts), delivered once by the woken runtime as any resumed teammate's;
//   task     a task anyone may claim is free and no teammate is awake to claim it: the first
//            hibernating member in the roster wakes (one per pass, so a new task does not wake a crowd).
// `settling`: marked but its process not yet gone (it is writing its last lines), or gone while its
// pane is not yet shown as exited: look again soon.
// `exitedPanes`: hibernating members whose pane is still shown as exited (tmux remain-on-exit):
// closed by the waker, as a shutdown's pane is. The waking itself is the resume path (resume.ts).
import type { Member } from '../protocol/config.js';
import { sameName } from '../protocol/names.js';
import { Mailbox } from '../mailbox/mailbox.js';
import { TaskList } from '../tasks/index.js';
import { readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { Env } from './command-line.js';
import { collectStatus } from './status-report.js';

export interface DueToWake {
  wake: { name: string; why: 'message' | 'task' }[];
  settling: string[];
  exitedPanes: Member[];
  /** The sleepKeys of the members confirmed asleep (process gone). */
  asleep: string[];
}

const NOTHING: DueToWake = { wake: [], settling: [], exitedPanes: [], asleep: [] };

/** A sleeper as the waker remembers it: its name and when it went to sleep. */
export function sleepKey(m: Pick<Member, 'name' | 'hibernatedAt'>): string {
  return `${m.name.toLowerCase()}@${m.hibernatedAt ?? ''}`;
}

/**
 * Who wakes now, who to look at again, which exited panes to close. Cheap when nothing is due: one
 * read of config.json, the sleepers' inboxes and the task list; liveness (collectStatus: pane
 * probes) only when a sleeper has mail, a task is free, or a sleeper is new (`known`: the sleepKeys
 * already seen asleep; `asleep` in the answer adds to them).
 */
export async function dueToWake(team: Team, env: Env, known: ReadonlySet<string> = new Set()): Promise<DueToWake> {
  const config = await readTeam(team);
  const sleepers = config.members.filter((m) => m.hibernatedAt !== undefined);
  if (sleepers.length === 0) return NOTHING;
  const mailbox = new Mailbox({ team });
  const mail = await Promise.all(sleepers.map(async (m) => (await mailbox.unread(m.name).catch(() => [])).length > 0));
  const fresh = sleepers.some((m) => !known.has(sleepKey(m)));
  if (!mail.some(Boolean) && !fresh && (await new TaskList(team).claimable().catch(() => [])).length === 0) return NOTHING;
  const { report, details } = await collectStatus(team, { env });
  const due: DueToWake = { wake: [], settling: [], exitedPanes: [], asleep: [] };
  let asleepFirst: string | undefined;
  let awake = 0;
  report.members.forEach((m, i) => {
    if (i === 0) return; // the leader
    const member = config.members.find((c) => sameName(c.name, m.name));
    if (member === undefined) return;
    // Its status file says hibernating as it starts to exit: asleep only once its process is gone.
    if (m.state !== 'hibernating' || m.alive === true) {
      if (member.hibernatedAt !== undefined && m.alive === true) due.settling.push(m.name);
      else if (m.alive === true) awake += 1;
      return;
    }
    // Its process is gone, but tmux has not shown its pane as exited yet (it does so on SIGCHLD,
    // late on a loaded machine), or could not be asked: look again, or its pane is never closed.
    const pane = details[i]?.pane;
    if (pane === 'alive' || pane === 'unknown') {
      due.settling.push(m.name);
      return;
    }
    asleepFirst ??= m.name;
    due.asleep.push(sleepKey(member));
    if (pane === 'dead') due.exitedPanes.push(member);
    if ((m.unread ?? 0) > 0) due.wake.push({ name: m.name, why: 'message' });
  });
  if (awake === 0 && asleepFirst !== undefined && !due.wake.some((w) => w.name === asleepFirst)) {
    const free = await new TaskList(team).claimable().catch(() => []);
    if (free.length > 0) due.wake.push({ name: asleepFirst, why: 'task' });
  }
  return due;
}
