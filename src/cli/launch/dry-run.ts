// `swarm launch --dry-run`: every command launch would run, as shell-quoted lines, computed without
// writing anything (no team, no key, no pane). The lines come from the chosen backend's own
// `plan()` and, when the console goes to the team's session, `sessions.planConsole()`: the same
// argv builders the real launch runs, so the two cannot drift. Credentials are shown as
// <redacted>; values that exist only once the team is created (its session id and verify key, new
// pane ids, the private env files and fifo dirs) are <placeholders>.
import { quote } from 'shell-quote';
import type { Backend, PlanLine } from '../../backends/backend.js';
import { agentId } from '../../protocol/names.js';
import { Team } from '../../team/team.js';
import { newMemberColor } from '../../team/team-store.js';
import { resolveAgentType } from '../../team/agent-types.js';
import { CREDENTIAL_ENV, forwardedEnv, type Env } from '../../teammates/command-line.js';
import { memberPane } from '../../teammates/recipe.js';
import { describeLoweredMode, typedSettings } from '../../teammates/spawn.js';
import { worktreeAddArgv, type WorktreePlan } from '../../teammates/worktree.js';
import type { ExistingTeam } from './existing-team.js';
import { leadArgv, spawnAgain } from './start-team.js';
import type { TeamFile } from './team-file.js';

export interface DryRunInput {
  file: TeamFile;
  team: string;
  /** The team name is taken (then launch attaches to it, starts it again, or with `rename` picks a free name). */
  taken: boolean;
  /** --rename: a taken name gets a free one. */
  rename?: boolean;
  /** A taken name (without --rename): what launch finds there (existingTeam), or why it would stop. */
  existing?: ExistingTeam | { refused: string } | undefined;
  /** --fresh: a team at rest is deleted first. */
  fresh?: boolean;
  root: string;
  env: Env;
  cwd: string;
  /** The backend launch would use (nothing is run on it: only plan()). */
  backend: Backend;
  /** Member `index`'s backend when it is not `backend` (a member with a host: the ssh backend's). */
  backendOf?: (index: number) => Backend | undefined;
  console: boolean;
  /** The worktrees of `isolation: worktree` members, by member name (planWorktree). */
  worktrees?: ReadonlyMap<string, WorktreePlan>;
  /** Tests: the `claude` lookup. */
  which?: (command: string, env: Env) => string | undefined;
}

/** Credentials are never printed: their values become `<redacted>`. */
const SECRETS = new Set<string>(CREDENTIAL_ENV);
export const REDACTED = '<redacted>';

export function redacted(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, SECRETS.has(k) ? REDACTED : v]));
}

/** One plan line as printed: a command shell-quoted, a note as a `#` comment. */
export function planText(line: PlanLine): string {
  return 'run' in line ? quote(line.run) : `# ${line.note}`;
}

/** The lines `--dry-run` prints. */
export function dryRunLines(i: DryRunInput): string[] {
  return dryRunPlan(i).map(planText);
}

/** What `--dry-run --json` prints: `{team, nameTaken, root, backend, steps: [{run: argv} | {note}]}`. */
export function dryRunJson(i: DryRunInput): { team: string; nameTaken: boolean; root: string; backend: string; steps: PlanLine[] } {
  return { team: i.team, nameTaken: i.taken, root: i.root, backend: i.backend.type, steps: dryRunPlan(i).map((l) => ('run' in l ? { run: l.run } : { note: l.note })) };
}

/** Every step of the dry run, in order: the commands launch runs and `#` notes between them. */
export function dryRunPlan(i: DryRunInput): PlanLine[] {
  const note = (text: string): PlanLine => ({ note: text });
  const out: PlanLine[] = [
    note('swarm launch --dry-run: nothing is written; <placeholders> exist only once the team is created'),
    note(`root ${i.root}`),
  ];
  const existing = i.taken && i.rename !== true ? i.existing : undefined;
  if (existing !== undefined && 'refused' in existing) {
    out.push(note(`team "${i.team}" exists; launch would stop here: ${existing.refused}`));
    return out;
  }
  if (existing?.running === true) {
    const fresh = i.fresh === true ? '; --fresh would refuse: it deletes a team only when none of it runs' : '';
    out.push(note(`team "${i.team}" exists and runs: launch would attach to it (or print how), starting nothing${fresh} (--rename: a second team under a free name)`));
    return out;
  }
  if (existing !== undefined && i.fresh !== true) {
    const spawn = i.file.members.filter((m) => spawnAgain(m.name, existing.roster)).map((m) => m.name);
    const what = [spawn.length > 0 ? `spawn ${spawn.join(', ')}` : '', existing.stopped.length > 0 ? `resume ${existing.stopped.join(', ')} (stopped, with their conversation)` : '']
      .filter((w) => w !== '')
      .join('; ');
    out.push(
      note(`team "${i.team}" exists with no teammate running: launch would start it again from this file, keeping its task list and inbox history: ${what || 'nobody to start'}`),
      note(`the file's tasks not on its list yet are created; ${i.backend.describe()} (--fresh: delete it first and start from nothing)`),
    );
    return out;
  }
  if (existing !== undefined) out.push(note(`delete team "${i.team}" and its files: its tasks, inboxes and key (--fresh)`));
  out.push(
    note(`create team "${i.team}"${i.taken && existing === undefined ? ' (taken: a free name would be picked and announced)' : ''} with ${i.file.members.length} member${i.file.members.length === 1 ? '' : 's'}`),
    note(i.backend.describe()),
  );
  const team = new Team(i.root, i.team);
  const tasks = i.file.tasks ?? [];
  if (tasks.length > 0) {
    out.push(note(`create ${tasks.length} task${tasks.length === 1 ? '' : 's'} in ${team.paths.tasks.dir} before spawning (owners get a task_assignment once spawned)`));
  }
  const printedOnce = new Set<string>();
  const print = (lines: readonly PlanLine[]): void => {
    for (const l of lines) {
      const text = planText(l);
      if (l.once === true) {
        if (printedOnce.has(text)) continue;
        printedOnce.add(text);
      }
      out.push(l);
    }
  };
  const roster: { color: string }[] = [{ color: newMemberColor([]) }];
  i.file.members.forEach((m, index) => {
    const worktree = i.worktrees?.get(m.name);
    const baseCwd = m.cwd ?? i.cwd;
    const cwd = worktree?.cwd ?? baseCwd;
    if (worktree !== undefined) {
      out.push(note(`${m.name} works in its own git worktree on branch ${worktree.branch}, from ${worktree.base.slice(0, 12)}`), { run: worktreeAddArgv(worktree) });
    }
    const type = m.agentType === undefined ? undefined : resolveAgentType({ cwd: baseCwd, root: i.root }, m.agentType);
    const chosen = typedSettings({ model: m.model, defaultModel: i.file.model, permissionMode: m.permissionMode, defaultPermissionMode: i.file.permissionMode }, type);
    if (chosen.lowered && type) out.push(note(describeLoweredMode(m.name, type, chosen.lowered)));
    const backend = i.backendOf?.(index) ?? i.backend;
    // The colour addMember gives it in the new team: the lead's and the earlier members' are taken.
    const color = newMemberColor(roster);
    roster.push({ color });
    const spec = memberPane({
      team,
      // A claude member's session id is drawn at spawn (spawn.ts).
      member: { name: m.name, color, agentType: m.agentType, model: chosen.model, planModeRequired: m.planModeRequired, mode: chosen.mode, cwd, sessionId: '<new-session-id>' },
      runtime: m.runtime ?? 'swarm',
      lead: { sessionId: '<lead-session-id>', verifyKey: '<lead-verify-key>' },
      env: i.env,
      backend,
      which: i.which,
    });
    const lines = m.prompt.trim().split('\n').length;
    out.push(note(`${m.name} (${agentId(m.name, i.team)}): its prompt (${lines} line${lines === 1 ? '' : 's'}) becomes its first inbox message`));
    print(backend.plan({ ...spec, env: redacted(spec.env) }));
  });
  if (!i.console) {
    if (i.backend.sessions !== undefined) print(i.backend.sessions.planDropConsolePane(i.team));
    return [...out, note(`--no-console: then print the status table (swarm status --team ${i.team})`)];
  }
  const lead = leadArgv(i.team);
  if (i.backend.sessions !== undefined) {
    print(i.backend.sessions.planConsole(i.team, { argv: lead, cwd: i.cwd, env: redacted(forwardedEnv(i.env)) }));
  } else {
    out.push(note(`the leader console runs here: ${quote(lead)}`));
  }
  return out;
}
