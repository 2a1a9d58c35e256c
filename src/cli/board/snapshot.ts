// Everything the board shows of one team at one moment (docs/board.md), read from the team's files
// by the code that already reads them: members as `swarm status --json` reports them
// (teammates/status-report collectStatus, whatever state string it gives), the task graph
// (task-graph.ts), the inboxes as a timeline (timeline.ts), the pending permission requests
// (permissions/pending-list, which also takes in a Claude Code teammate's inbox-only requests, as
// `swarm permissions` does) and the open plan questions (permissions/plan-answer), and the team's
// spend against its budget (team/spend). No environment value, key or path of the root is in it:
// it goes to a browser. `teamsIndex` is the board without a team: every team under the root.
import { Mailbox } from '../../mailbox/mailbox.js';
import { listPending } from '../../permissions/pending-list.js';
import { openPlanRequests } from '../../permissions/plan-answer.js';
import { isColorName } from '../../protocol/colors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { readBudgetState } from '../../team/spend.js';
import { listTeams, readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { TaskList } from '../../tasks/index.js';
import { collectStatus, type MemberStatus } from '../../teammates/status-report.js';
import { worktreeBranch } from '../../teammates/worktree.js';
import { describeToolInput } from '../output/render.js';
import { layoutTasks, type TaskGraph } from './task-graph.js';
import { readTimeline, type TimelineEntry } from './timeline.js';

/** The most of a plan the board sends (the rest is in the plan file the teammate named). */
export const MAX_PLAN_CHARS = 20_000;

export type BoardMember = Pick<
  MemberStatus,
  'name' | 'state' | 'backendType' | 'host' | 'task' | 'contextPercent' | 'inputTokens' | 'outputTokens' | 'costUsd' | 'toolUses' | 'unread' | 'pendingPermissions' | 'resumeCommand'
> & {
  /** One of protocol/colors' names, or null. */
  color: string | null;
  /** Its latest activity ("Bash: npm test"), or null. */
  activity: string | null;
  /** Its git worktree's branch, when it works in one. */
  branch: string | null;
};

export interface BoardPermission {
  id: string;
  worker: string;
  color: string | null;
  toolName: string;
  /** The most telling part of the input: the Bash command, the file path. */
  what: string;
  description: string;
  /** When it was asked (epoch ms): the page shows the age, so the snapshot does not change every second. */
  at: number;
  orphaned: boolean;
}

export interface BoardPlan {
  from: string;
  requestId: string;
  at: number;
  plan: string;
  planFilePath: string;
}

export interface BoardTotals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  unpricedMembers: number;
  /** The budget in force and what is left of it; null without one. */
  budget: { usd: number | null; tokens: number | null; leftUsd: number | null; leftTokens: number | null; reached: string | null } | null;
}

export interface BoardSnapshot {
  team: string;
  backend: string | null;
  members: BoardMember[];
  progress: { done: number; total: number };
  graph: TaskGraph;
  messages: TimelineEntry[];
  permissions: BoardPermission[];
  plans: BoardPlan[];
  totals: BoardTotals;
  /** Files that could not be read, one line each. */
  warnings: string[];
}

export interface SnapshotOptions {
  env: NodeJS.ProcessEnv;
  now?: () => number;
}

function colorOf(color: string | undefined): string | null {
  return isColorName(color) ? color : null;
}

/** Team `team` as the board shows it now. Throws not_found / corrupt for config.json only. */
export async function boardSnapshot(team: Team, opts: SnapshotOptions): Promise<BoardSnapshot> {
  const now = opts.now ?? Date.now;
  const config = await readTeam(team);
  const status = await collectStatus(team, { env: opts.env, now });
  const warnings = [...status.warnings];
  const members: BoardMember[] = status.report.members.map((m, i) => {
    const member = config.members.find((c) => c.name === m.name);
    return {
      name: m.name,
      state: m.state,
      backendType: m.backendType,
      host: m.host,
      task: m.task,
      contextPercent: m.contextPercent,
      inputTokens: m.inputTokens,
      outputTokens: m.outputTokens,
      costUsd: m.costUsd,
      toolUses: m.toolUses,
      unread: m.unread,
      pendingPermissions: m.pendingPermissions,
      resumeCommand: m.resumeCommand,
      color: colorOf(status.details[i]?.color),
      activity: m.activities.at(-1) ?? null,
      branch: member?.worktreePath ? worktreeBranch(config.name, m.name) : null,
    };
  });
  const { tasks } = await new TaskList(team).list().catch(() => ({ tasks: [] })); // collectStatus warned already
  const mailbox = new Mailbox({ team });
  const names = [LEAD_NAME, ...config.members.filter((m) => m.name !== LEAD_NAME).map((m) => m.name)];
  const messages = await readTimeline(mailbox, names, warnings);
  const pending = await listPending(team, { config, now, onProblem: (w) => warnings.push(w) });
  const plans = await openPlanRequests(team, config);
  const { budget, spent, hit } = await readBudgetState(team, config);
  const total = status.report.total;
  return {
    team: config.name,
    backend: status.report.backend,
    members,
    progress: status.report.tasks,
    graph: layoutTasks(tasks),
    messages,
    permissions: pending.map((p) => ({
      id: p.id,
      worker: p.workerName,
      color: colorOf(p.workerColor),
      toolName: p.toolName,
      what: describeToolInput(p.toolName, p.input),
      description: p.description,
      at: p.createdAt,
      orphaned: p.orphaned,
    })),
    plans: plans.map((p) => ({ from: p.from, requestId: p.request.requestId, at: p.at, plan: p.request.planContent.slice(0, MAX_PLAN_CHARS), planFilePath: p.request.planFilePath })),
    totals: {
      inputTokens: total.inputTokens,
      outputTokens: total.outputTokens,
      costUsd: total.costUsd,
      unpricedMembers: total.unpricedMembers,
      budget:
        budget?.usd === undefined && budget?.tokens === undefined
          ? null
          : {
              usd: budget.usd ?? null,
              tokens: budget.tokens ?? null,
              leftUsd: budget.usd === undefined ? null : Math.max(0, Math.round((budget.usd - spent.costUsd) * 1e6) / 1e6),
              leftTokens: budget.tokens === undefined ? null : Math.max(0, budget.tokens - spent.tokens),
              reached: hit?.why ?? null,
            },
    },
    warnings,
  };
}

export interface TeamLink {
  name: string;
  description: string | null;
  members: number;
  problem: string | null;
}

/** Every team under the root (the board without --team). */
export async function teamsIndex(root: string): Promise<TeamLink[]> {
  return (await listTeams(root)).map((t) => ({ name: t.name, description: t.description ?? null, members: t.members, problem: t.problem ?? null }));
}
