// The data behind `swarm status` (docs/protocol.md#cli): one row per member, leader first, built from
// config.json, status/<name>.json (zod-parsed), each inbox's unread count, the pending permission
// files, and liveness checked against reality (teammates/liveness: one probe per backend the team
// uses, zombie-aware pids), and the team's task list (each member's current task: its lowest-id
// in_progress task; the progress `done/total`). Reads only — a corrupt file is kept aside by the
// storage layer as everywhere else (and reported as a warning) — except that, with `releaseDead`,
// the unfinished tasks of a member found `dead` go back to the list (release.ts, docs/protocol.md#task-list) before
// the task columns are read. A `stopped` member keeps its tasks: `swarm resume` brings it back.
//
// State rules: a member whose process is dead (or unknown) and whose pane is gone or exited is
// `hibernating` when config.json says it went to sleep (`hibernatedAt`, docs/hibernation.md), else
// `stopped` (docs/protocol.md#transcripts-and-resume: not shut down, so still in the roster; `swarm resume` restarts it), whatever
// config.json's `isActive` says; a pane gone while its pid still lives is `dead` (a process nobody
// can reach: resuming it would run it twice); a heartbeat older than STALE_HEARTBEAT_MS from a process that is not known dead is `stale`; a
// member with no status file (e.g. a real `claude` teammate) is `working`/`idle` from `isActive`,
// else `unknown`. The leader: an agent lead writes status/team-lead.json like a teammate; while
// that file's pid lives, its state (or `stale`) is the leader's; otherwise the leader is `leading`
// while its console process (`leadProcess.pid`) lives, else `away`.
//
// Tokens and cost come from the status files (the leader's too); `total` sums what is there:
// input tokens are each member's latest whole prompt (its context now, not its billed input),
// output tokens and cost are summed; a member whose file has tokens but no cost (a model without
// a list price, protocol/prices) is counted in `unpricedMembers`, its tokens in the sums. Progress:
// `contextPercent` is the latest prompt's share of the member's model's context window
// (protocol/context-window.ts), `activities` its status file's last five.
import { judgeLiveness, gatherLivenessFacts, recordedPaneOf, type Liveness, type PaneState, type ProbeOptions, type RecordedPane } from './liveness.js';
import { Mailbox } from '../mailbox/mailbox.js';
import { pendingIds, readPending } from '../permissions/pending.js';
import type { TeamConfig } from '../protocol/config.js';
import { contextWindow } from '../protocol/context-window.js';
import { systemClock, type Clock } from '../protocol/ids.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { StatusFileSchema, type StatusFile, type TeammateState } from '../protocol/status.js';
import { readJsonFile } from '../storage/json-file.js';
import type { TeamPaths } from '../team/paths.js';
import { leaseSelf, whyUntrusted } from '../team/lease-trust.js';
import { readTeamSpend } from '../team/spend.js';
import { readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { Task } from '../protocol/task.js';
import { progressOf, TaskList } from '../tasks/index.js';
import { releaseTasksOf } from './release.js';

/** A heartbeat older than this, from a process not known dead, shows as `stale`. */
export const STALE_HEARTBEAT_MS = 30_000;

export type MemberState = TeammateState | 'stale' | 'stopped' | 'dead' | 'unknown' | 'leading' | 'away';

/** The command that restarts a stopped member (docs/protocol.md#transcripts-and-resume), as status and send print it. */
export function resumeCommand(name: string, team: string): string {
  return `swarm resume ${name} --team ${team}`;
}

/** One member of `swarm status --json` (docs/protocol.md#cli). `null` = not known (no pid, no status file). */
export interface MemberStatus {
  name: string;
  agentId: string;
  backendType: string | null;
  /** The machine it runs on (the ssh backend's `[user@]host[:port]`); null = this one. */
  host: string | null;
  paneId: string | null;
  pid: number | null;
  alive: boolean | null;
  state: MemberState;
  heartbeatAt: number | null;
  unread: number | null;
  pendingPermissions: number;
  /** A stopped member's command to restart it (its pending permissions are orphaned then); else null. */
  resumeCommand: string | null;
  toolUses: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  /** Its cost estimate in USD; null when its status file has none (no file, or a model without a list price). */
  costUsd: number | null;
  /** The member's current task (its in_progress task; the lowest id if several), docs/protocol.md#task-list. */
  task: { id: string; subject: string } | null;
  /** Its latest whole prompt as a share of its model's context window, in % (rounded); null: no status file. */
  contextPercent: number | null;
  /** Its last activities (at most 5, oldest first: "Read src/a.ts", "Bash: npm test"); none without a status file. */
  activities: string[];
  /** When it went to sleep (epoch ms) while `hibernating` (docs/hibernation.md); else null. */
  hibernatingSince: number | null;
}

/** The progress figures of a member's status file: context use and its last activities. */
function memberProgress(status: StatusFile | undefined, model: string | undefined): Pick<MemberStatus, 'contextPercent' | 'activities'> {
  if (status === undefined) return { contextPercent: null, activities: [] };
  return { contextPercent: Math.round((status.inputTokens / contextWindow(model ?? '')) * 100), activities: status.activities.map((a) => a.text) };
}

/** The team's tokens and cost: sums over the members whose status file reports them. */
export interface StatusTotal {
  /** The sum of each member's latest whole prompt: the team's context now, not billed input. */
  inputTokens: number;
  outputTokens: number;
  /** The team's spend (team/spend.ts): its members' known costs and what members that left spent; unpriced tokens are not in it. */
  costUsd: number;
  /** Members whose status file reports tokens but no cost. */
  unpricedMembers: number;
}

/** `swarm status --json` (docs/protocol.md#cli). */
export interface StatusReport {
  team: string;
  backend: string | null;
  /** The task list's progress: completed tasks of all tasks. */
  tasks: { done: number; total: number };
  members: MemberStatus[];
  total: StatusTotal;
}

/** What the table shows beyond the JSON, one per member, same order. */
export interface MemberDetail {
  color: string | undefined;
  pane: PaneState;
  pidAlive: boolean | null;
  isActive: boolean | undefined;
}

export interface CollectedStatus {
  report: StatusReport;
  details: MemberDetail[];
  /** Files that could not be read (kept aside if corrupt); one line each. */
  warnings: string[];
}

export interface CollectOptions extends Omit<ProbeOptions, 'team'> {
  now?: Clock;
  /** Release the tasks of members found dead for which this says yes (status and the console do; doctor asks first). */
  releaseDead?: (name: string) => boolean;
}

/** Pure: a teammate's displayed state from its liveness, status file and config flag. */
export function teammateState(o: {
  alive: boolean | null;
  /** The pid's own verdict (null: none recorded); a live pid with a lost pane is `dead`, not `stopped`. */
  pidAlive?: boolean | null;
  status: StatusFile | undefined;
  isActive: boolean | undefined;
  /** The member's `runtime` (config.json): a `swarm` teammate always writes a status file. */
  runtime?: string | undefined;
  /** config.json `hibernatedAt`: gone on purpose, woken by its next inbox entry (docs/hibernation.md). */
  hibernatedAt?: number | undefined;
  now: number;
}): MemberState {
  if (o.alive === false) return o.pidAlive === true ? 'dead' : o.hibernatedAt !== undefined ? 'hibernating' : 'stopped';
  if (o.status !== undefined) return o.now - o.status.heartbeatAt > STALE_HEARTBEAT_MS ? 'stale' : o.status.state;
  if (o.isActive === true) return 'working';
  if (o.isActive === false) return 'idle';
  // A swarm teammate writes its status file as it starts: none yet, and its pane not known gone
  // (up, or not made yet: the spawn records the member before its pane), means just spawned.
  if (o.runtime === 'swarm') return 'starting';
  return 'unknown';
}

/** Pure: the leader's displayed state. An agent lead's status file decides while its pid lives; else the console's liveness. */
export function leadState(o: { live: Liveness; status: StatusFile | undefined; statusPidAlive: boolean; now: number }): MemberState {
  if (o.status !== undefined && o.statusPidAlive) return teammateState({ alive: true, status: o.status, isActive: undefined, now: o.now });
  return o.live.alive === true ? 'leading' : 'away';
}

/** Pure: the team total of the members' tokens and costs. */
export function teamTotal(members: readonly Pick<MemberStatus, 'inputTokens' | 'outputTokens' | 'costUsd'>[]): StatusTotal {
  let inputTokens = 0;
  let outputTokens = 0;
  let costUsd = 0;
  let unpricedMembers = 0;
  for (const m of members) {
    inputTokens += m.inputTokens ?? 0;
    outputTokens += m.outputTokens ?? 0;
    if (m.costUsd !== null) costUsd += m.costUsd;
    else if (m.inputTokens !== null || m.outputTokens !== null) unpricedMembers += 1;
  }
  return { inputTokens, outputTokens, costUsd: Math.round(costUsd * 1e6) / 1e6, unpricedMembers };
}

/** The team's backend: the configured one, else the one its teammates use (`mixed` if several). */
export function teamBackend(config: TeamConfig): string | null {
  if (config.swarm?.backend) return config.swarm.backend;
  const kinds = new Set(config.members.filter((m) => m.name !== LEAD_NAME && m.backendType).map((m) => m.backendType!));
  if (kinds.size === 0) return null;
  return kinds.size === 1 ? [...kinds][0]! : 'mixed';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function readStatus(paths: TeamPaths, name: string, warnings: string[]): Promise<StatusFile | undefined> {
  try {
    return await readJsonFile(paths.status(name), { schema: StatusFileSchema });
  } catch (e) {
    warnings.push(`status of ${name}: ${message(e)}`);
    return undefined;
  }
}

async function unreadCount(mailbox: Mailbox, name: string, warnings: string[]): Promise<number | null> {
  try {
    return (await mailbox.unread(name)).length;
  } catch (e) {
    warnings.push(`inbox of ${name}: ${message(e)}`);
    return null;
  }
}

/** Pending request counts by worker name (lower-cased), from permissions/pending/*.json. */
async function pendingByWorker(paths: TeamPaths, warnings: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  let ids: string[];
  try {
    ids = await pendingIds(paths);
  } catch (e) {
    warnings.push(`pending permissions: ${message(e)}`);
    return counts;
  }
  for (const id of ids) {
    try {
      const record = await readPending(paths, id);
      if (!record) continue; // decided meanwhile
      const key = record.workerName.toLowerCase();
      counts.set(key, (counts.get(key) ?? 0) + 1);
    } catch (e) {
      warnings.push(`pending request ${id}: ${message(e)}`);
    }
  }
  return counts;
}

/** The task list as status shows it: tasks in id order and the progress (empty, with a warning, when unreadable). */
async function readTasks(team: Team, warnings: string[]): Promise<{ tasks: Task[]; progress: { done: number; total: number } }> {
  const list = new TaskList(team);
  try {
    const { tasks, corrupt, skipped } = await list.list();
    for (const c of corrupt) warnings.push(`task file ${c.file}: ${c.error} (kept at ${c.keptAt})`);
    for (const s of skipped) warnings.push(`${s.problem}; ${s.fix}`);
    return { tasks, progress: progressOf(tasks) }; // from the same read: the list is not read twice
  } catch (e) {
    warnings.push(`task list: ${message(e)}`);
    return { tasks: [], progress: { done: 0, total: 0 } };
  }
}

/** The member's current task: its in_progress task with the lowest id. */
export function currentTask(tasks: readonly Task[], name: string): { id: string; subject: string } | null {
  const t = tasks.find((x) => x.status === 'in_progress' && x.owner !== undefined && sameName(x.owner, name));
  return t === undefined ? null : { id: t.id, subject: t.subject };
}

/** Everything `swarm status` shows for `team`. Throws not_found / corrupt for config.json only. */
export async function collectStatus(team: Team, opts: CollectOptions = {}): Promise<CollectedStatus> {
  const now = (opts.now ?? systemClock)();
  const config = await readTeam(team);
  const paths = team.paths;
  const mailbox = new Mailbox({ team });
  const warnings: string[] = [];
  const leader = config.members.find((m) => m.name === LEAD_NAME);
  const teammates = config.members.filter((m) => m.name !== LEAD_NAME);

  const [leadStatus, ...statuses] = await Promise.all([LEAD_NAME, ...teammates.map((m) => m.name)].map((n) => readStatus(paths, n, warnings)));
  // A lease counts only while its holder proves itself (team/lease-trust.ts): a forged or stale one
  // naming a live pid must not show team-lead as leading.
  const lease = config.leadProcess;
  const believed = lease !== undefined && whyUntrusted(lease, leaseSelf('console')) === undefined ? lease : undefined;
  const leaderPid = believed?.pid ?? leader?.pid ?? leadStatus?.pid;
  const panes: RecordedPane[] = [
    leader ? recordedPaneOf(leader, leaderPid) : { paneId: '', pid: leaderPid },
    ...teammates.map((m, i) => recordedPaneOf(m, m.pid ?? statuses[i]?.pid)),
  ];
  const facts = await gatherLivenessFacts(panes, { ...opts, team });
  const live = panes.map((p) => judgeLiveness(p, facts));
  const pending = await pendingByWorker(paths, warnings);
  const unread = await Promise.all([LEAD_NAME, ...teammates.map((m) => m.name)].map((n) => unreadCount(mailbox, n, warnings)));

  const states = teammates.map((m, i) => teammateState({ alive: live[i + 1]!.alive, pidAlive: live[i + 1]!.pidAlive, status: statuses[i], isActive: m.isActive, runtime: m.runtime, hibernatedAt: m.hibernatedAt, now }));
  const dead = teammates.filter((m, i) => states[i] === 'dead' && opts.releaseDead?.(m.name) === true);
  for (const m of dead) {
    await releaseTasksOf(team, m.name, 'crashed').catch((e: unknown) => warnings.push(`releasing ${m.name}'s tasks: ${message(e)}`));
  }
  const { tasks, progress } = await readTasks(team, warnings);

  const leadLive = live[0]!;
  const members: MemberStatus[] = [
    {
      name: LEAD_NAME,
      agentId: config.leadAgentId,
      backendType: leader?.backendType ?? null,
      host: leader?.host ?? null,
      paneId: leader?.tmuxPaneId || null,
      pid: leaderPid ?? null,
      alive: leadLive.alive,
      state: leadState({ live: leadLive, status: leadStatus, statusPidAlive: leadStatus !== undefined && facts.isAlive(leadStatus.pid), now }),
      heartbeatAt: leadStatus?.heartbeatAt ?? null,
      unread: unread[0] ?? null,
      pendingPermissions: [...pending.values()].reduce((a, b) => a + b, 0),
      resumeCommand: null,
      toolUses: leadStatus?.toolUses ?? null,
      inputTokens: leadStatus?.inputTokens ?? null,
      outputTokens: leadStatus?.outputTokens ?? null,
      costUsd: leadStatus?.costUsd ?? null,
      task: currentTask(tasks, LEAD_NAME),
      ...memberProgress(leadStatus, leader?.model),
      hibernatingSince: null,
    },
  ];
  const details: MemberDetail[] = [{ color: leader?.color, pane: leadLive.pane, pidAlive: leadLive.pidAlive, isActive: leader?.isActive }];
  teammates.forEach((m, i) => {
    const status = statuses[i];
    const l = live[i + 1]!;
    const pid = panes[i + 1]!.pid;
    members.push({
      name: m.name,
      agentId: m.agentId,
      backendType: m.backendType ?? null,
      host: m.host ?? null,
      paneId: m.tmuxPaneId || null,
      pid: pid ?? null,
      alive: l.alive,
      state: states[i]!,
      heartbeatAt: status?.heartbeatAt ?? null,
      unread: unread[i + 1] ?? null,
      pendingPermissions: pending.get(m.name.toLowerCase()) ?? 0,
      resumeCommand: states[i] === 'stopped' ? resumeCommand(m.name, config.name) : null,
      toolUses: status?.toolUses ?? null,
      inputTokens: status?.inputTokens ?? null,
      outputTokens: status?.outputTokens ?? null,
      costUsd: status?.costUsd ?? null,
      task: currentTask(tasks, m.name),
      ...memberProgress(status, m.model),
      hibernatingSince: states[i] === 'hibernating' ? (m.hibernatedAt ?? null) : null,
    });
    details.push({ color: m.color, pane: l.pane, pidAlive: l.pidAlive, isActive: m.isActive });
  });
  // The cost is the team's whole spend (team/spend.ts): members that left count too, so it never drops.
  const spent = await readTeamSpend(team, config);
  const total = { ...teamTotal(members), costUsd: Math.round(spent.costUsd * 1e6) / 1e6 };
  return { report: { team: config.name, backend: teamBackend(config), tasks: progress, members, total }, details, warnings };
}

/** Those of `names` (e.g. a message's recipients) that are stopped, in roster spelling; none stopped: []. */
export async function stoppedAmong(team: Team, names: readonly string[], env: CollectOptions['env']): Promise<string[]> {
  const { report } = await collectStatus(team, { env });
  return report.members.filter((m) => m.state === 'stopped' && names.some((n) => sameName(n, m.name))).map((m) => m.name);
}
