// What the agent lead needs to know about its team between turns (SPEC §9): who is still working
// (a live process whose status file says starting, working or waiting for a permission; a member
// without a status file, e.g. a real `claude` teammate, by config.json's isActive; a live teammate
// with unread messages it will take up as a turn: it is about to work), which tasks are still
// open (pending or in_progress; Claude Code's internal ones left out), and the team's spend
// for the budgets: every member's cost and tokens from its status file, the highest figure seen
// per member kept, so what a teammate spent still counts after it left and took its file with it.
import { Mailbox } from '../../mailbox/mailbox.js';
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { isProcessAlive } from '../../storage/pid.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { StatusFileSchema, type StatusFile } from '../../protocol/status.js';
import type { Task } from '../../protocol/task.js';
import { readJsonFile } from '../../storage/json-file.js';
import { isInternalTask, TaskList } from '../../tasks/index.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';

const ACTIVE_STATES = new Set(['starting', 'working', 'waiting_permission']);

export interface TeamState {
  /** Teammates (not the lead) on the roster. */
  teammates: string[];
  /** Of those, the ones still working. */
  working: string[];
  /** Tasks not completed. */
  open: Task[];
}

/** An unread entry its teammate takes up as a turn: anything but a permission answer (those wait for the permission waiter). */
function wakes(m: InboxMessage): boolean {
  const parsed = parseControl(m.text);
  return parsed.kind !== 'control' || parsed.message.type !== 'permission_response';
}

async function statusOf(team: Team, name: string): Promise<StatusFile | undefined> {
  return readJsonFile(team.paths.status(name), { schema: StatusFileSchema }).catch(() => undefined);
}

export async function readTeamState(team: Team): Promise<TeamState> {
  const config = await readTeam(team);
  const teammates = config.members.filter((m) => !sameName(m.name, LEAD_NAME));
  const working: string[] = [];
  const mailbox = new Mailbox({ team });
  for (const m of teammates) {
    const s = await statusOf(team, m.name);
    const active = s === undefined ? m.isActive === true : ACTIVE_STATES.has(s.state) && isProcessAlive(s.pid);
    const woken = !active && s !== undefined && s.state !== 'exiting' && isProcessAlive(s.pid) && (await mailbox.unread(m.name).catch(() => [])).some(wakes);
    if (active || woken) working.push(m.name);
  }
  const { tasks } = await new TaskList(team).list();
  const open = tasks.filter((t) => t.status !== 'completed' && !isInternalTask(t));
  return { teammates: teammates.map((m) => m.name), working, open };
}

export interface Spend {
  costUsd: number;
  tokens: number;
  /** Members whose model has no price: their tokens count, their cost does not. */
  unpriced: string[];
}

export class TeamSpend {
  private readonly seen = new Map<string, { name: string; costUsd: number | undefined; tokens: number }>();

  constructor(private readonly team: Team) {}

  /** The team's spend so far (every status file read now, the highest figures kept). */
  async read(): Promise<Spend> {
    const config = await readTeam(this.team);
    for (const m of config.members) {
      const s = await statusOf(this.team, m.name);
      if (s === undefined) continue;
      const key = s.agentId ?? `${m.name}@${s.startedAt ?? 0}`;
      const before = this.seen.get(key);
      const tokens = Math.max(before?.tokens ?? 0, s.totalTokens);
      const costUsd = s.costUsd === undefined ? before?.costUsd : Math.max(before?.costUsd ?? 0, s.costUsd);
      this.seen.set(key, { name: m.name, tokens, costUsd });
    }
    let costUsd = 0;
    let tokens = 0;
    const unpriced = new Set<string>();
    for (const v of this.seen.values()) {
      tokens += v.tokens;
      if (v.costUsd === undefined) unpriced.add(v.name);
      else costUsd += v.costUsd;
    }
    return { costUsd, tokens, unpriced: [...unpriced] };
  }
}
