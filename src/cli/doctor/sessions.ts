// `swarm doctor`: tmux sessions named `swarm-<team>` (the visible sessions swarm creates outside
// tmux, SPEC §4.1) whose team no longer exists under this root. They are found with one
// `list-panes -a` on the right server (SWARM_TMUX_SOCKET → `-L`); `--fix` kills exactly those
// sessions and verifies they are gone.
//
// Another swarm root (another CLAUDE_CONFIG_DIR) may share the tmux server and have a team of that
// name. So a session is only reported when none of its live pane processes says otherwise: on Linux
// the CLAUDE_CONFIG_DIR in /proc/<pid>/environ (only that variable is read) must resolve to this
// root (unset = the default root). Where that cannot be read (macOS), the name alone decides.
import { readFileSync } from 'node:fs';
import { TmuxServer, hasSession, listAllPanes, sessionTarget, type TmuxPane } from '../../backends/tmux/commands.js';
import { pollUntil } from '../../backends/process.js';
import { SwarmError } from '../../protocol/errors.js';
import { TEAM_NAME_RE } from '../../protocol/names.js';
import { resolveRoot } from '../../team/paths.js';
import { teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import type { CheckResult, DoctorContext, Finding } from './machine-checks.js';

/** `swarm-<team>` → team, else undefined. */
export function sessionTeam(sessionName: string): string | undefined {
  const m = /^swarm-(.+)$/.exec(sessionName);
  return m && TEAM_NAME_RE.test(m[1]!) ? m[1] : undefined;
}

/**
 * The swarm root a process runs with: CLAUDE_CONFIG_DIR from its environment (nothing else is
 * kept), resolved like ours. Undefined when it cannot be read (no /proc, not ours, exited).
 */
export function processRoot(pid: number): string | undefined {
  let raw: string;
  try {
    raw = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return undefined;
  }
  const entry = raw.split('\0').find((e) => e.startsWith('CLAUDE_CONFIG_DIR='));
  return resolveRoot(entry === undefined ? {} : { CLAUDE_CONFIG_DIR: entry.slice('CLAUDE_CONFIG_DIR='.length) });
}

/** Adapter until tmux/commands.ts has a kill-session verb: `kill-session -t =<name>`. */
async function killSessionVerb(server: TmuxServer, name: string): Promise<void> {
  await server.run(['kill-session', '-t', sessionTarget(name)]);
}

function killLine(socket: string | undefined, name: string): string {
  return `tmux ${socket === undefined ? '' : `-L ${socket} `}kill-session -t '=${name}'`;
}

export async function checkTmuxSessions(ctx: DoctorContext): Promise<CheckResult> {
  const server = new TmuxServer({ socket: ctx.tmuxSocket, exec: ctx.exec });
  let panes: TmuxPane[];
  try {
    panes = await listAllPanes(server);
  } catch {
    return { findings: [], passed: [] }; // no usable tmux: the tmux check says so
  }
  const bySession = new Map<string, TmuxPane[]>();
  for (const p of panes) bySession.set(p.sessionName, [...(bySession.get(p.sessionName) ?? []), p]);
  const findings: Finding[] = [];
  let swarmSessions = 0;
  for (const [name, sessionPanes] of [...bySession].sort(([a], [b]) => a.localeCompare(b))) {
    const team = sessionTeam(name);
    if (team === undefined) continue;
    swarmSessions++;
    if (await teamExists(new Team(ctx.root, team))) continue;
    const foreign = sessionPanes
      .filter((p) => !p.dead)
      .map((p) => processRoot(p.pid))
      .find((r) => r !== undefined && r !== ctx.root);
    if (foreign !== undefined) continue; // another root's team
    const line = killLine(ctx.tmuxSocket, name);
    findings.push({
      check: 'orphan_session',
      severity: 'problem',
      problem: `tmux session ${name} (${sessionPanes.length} pane${sessionPanes.length === 1 ? '' : 's'}) belongs to no team: there is no team "${team}" under ${ctx.root}`,
      fix: `${line}  (swarm doctor --fix does it)`,
      apply: async () => {
        if (await hasSession(server, name)) await killSessionVerb(server, name);
        if (!(await pollUntil(async () => !(await hasSession(server, name)), 3000))) {
          throw new SwarmError('backend', `tmux session ${name} is still there after kill-session`);
        }
        return `killed tmux session ${name}`;
      },
    });
  }
  const passed = findings.length === 0 ? [`tmux: ${swarmSessions} swarm session${swarmSessions === 1 ? '' : 's'}, none orphaned`] : [];
  return { findings, passed };
}
