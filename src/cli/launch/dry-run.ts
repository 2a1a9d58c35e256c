// `swarm launch --dry-run`: every command launch would run, as shell-quoted lines, computed without
// writing anything (no team, no key, no pane). The lines come from the chosen backend's own
// `plan()` and, when the console goes to the team's session, `sessions.planConsole()`: the same
// argv builders the real launch runs, so the two cannot drift. Credentials are shown as
// <redacted>; values that exist only once the team is created (its session id and verify key, new
// pane ids, the private env files and fifo dirs) are <placeholders>.
import { quote } from 'shell-quote';
import type { Backend, PlanLine } from '../../backends/backend.js';
import { colorForIndex } from '../../protocol/colors.js';
import { agentId } from '../../protocol/names.js';
import { teamPaths } from '../../team/paths.js';
import { buildTeammateCommand, forwardedEnv, type Env } from '../../teammates/command-line.js';
import { leadArgv } from './start-team.js';
import type { TeamFile } from './team-file.js';

export interface DryRunInput {
  file: TeamFile;
  team: string;
  /** The team name is taken: a free one will be picked. */
  taken: boolean;
  root: string;
  env: Env;
  cwd: string;
  /** The backend launch would use (nothing is run on it: only plan()). */
  backend: Backend;
  console: boolean;
  /** Tests: the `claude` lookup. */
  which?: (command: string, env: Env) => string | undefined;
}

/** Credentials are never printed: their values become `<redacted>`. */
const SECRETS = new Set(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']);
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
  const out = [
    `# swarm launch --dry-run: nothing is written; <placeholders> exist only once the team is created`,
    `# root ${i.root}`,
    `# create team "${i.team}"${i.taken ? ' (taken: a free name would be picked and announced)' : ''} with ${i.file.members.length} member${i.file.members.length === 1 ? '' : 's'}`,
    `# ${i.backend.describe()}`,
  ];
  const tasks = i.file.tasks ?? [];
  if (tasks.length > 0) {
    out.push(`# create ${tasks.length} task${tasks.length === 1 ? '' : 's'} in ${teamPaths(i.root, i.team).tasks.dir} before spawning (owners get a task_assignment once spawned)`);
  }
  const printedOnce = new Set<string>();
  const print = (lines: readonly PlanLine[]): void => {
    for (const l of lines) {
      const text = planText(l);
      if (l.once === true) {
        if (printedOnce.has(text)) continue;
        printedOnce.add(text);
      }
      out.push(text);
    }
  };
  i.file.members.forEach((m, index) => {
    const cwd = m.cwd ?? i.cwd;
    const built = buildTeammateCommand({
      runtime: m.runtime ?? 'swarm',
      team: i.team,
      name: m.name,
      color: colorForIndex(index + 1),
      leadSessionId: '<lead-session-id>',
      leadVerifyKey: '<lead-verify-key>',
      agentType: m.agentType,
      model: m.model ?? i.file.model,
      planModeRequired: m.planModeRequired,
      permissionMode: m.permissionMode ?? i.file.permissionMode,
      cwd,
      env: i.env,
      ...(i.which ? { which: i.which } : {}),
    });
    const lines = m.prompt.trim().split('\n').length;
    out.push(`# ${m.name} (${agentId(m.name, i.team)}): its prompt (${lines} line${lines === 1 ? '' : 's'}) becomes its first inbox message`);
    const stderrLog = teamPaths(i.root, i.team).stderrLog(m.name);
    print(i.backend.plan({ team: i.team, name: m.name, color: colorForIndex(index + 1), argv: built.argv, env: redacted(built.env), cwd, stderrLog }));
  });
  if (!i.console) return [...out, `# --no-console: then print the status table (swarm status --team ${i.team})`];
  const lead = leadArgv(i.team);
  if (i.backend.sessions !== undefined) {
    print(i.backend.sessions.planConsole(i.team, { argv: lead, cwd: i.cwd, env: redacted(forwardedEnv(i.env)) }));
  } else {
    out.push(`# the leader console runs here: ${quote(lead)}`);
  }
  return out;
}
