// `swarm doctor`: team sessions (`swarm-<team>`, the visible tmux sessions swarm creates outside
// tmux, docs/protocol.md#backends) whose team no longer exists under this root. They are listed once through the
// registry's team sessions (the right server: SWARM_TMUX_SOCKET); `--fix` kills exactly those
// sessions and verifies they are gone.
//
// Another swarm root (another CLAUDE_CONFIG_DIR) may share the tmux server and have a team of that
// name. So a session is only reported when none of its live pane processes says otherwise: on Linux
// the CLAUDE_CONFIG_DIR in /proc/<pid>/environ (only that variable is read) must resolve to this
// root (unset = the default root). Where that cannot be read (macOS), the name alone decides.
import { readFileSync } from 'node:fs';
import type { ListedSession } from '../../backends/backend.js';
import { teamSessions } from '../../backends/registry.js';
import { resolveRoot } from '../../team/paths.js';
import { teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import type { CheckResult, DoctorContext, Finding } from './machine-checks.js';

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

export async function checkTmuxSessions(ctx: DoctorContext): Promise<CheckResult> {
  const sessions = teamSessions({ env: ctx.env, exec: ctx.exec });
  let listed: ListedSession[];
  try {
    listed = await sessions.list();
  } catch {
    return { findings: [], passed: [] }; // no usable tmux: the tmux check says so
  }
  const findings: Finding[] = [];
  for (const s of [...listed].sort((a, b) => a.name.localeCompare(b.name))) {
    if (await teamExists(new Team(ctx.root, s.team))) continue;
    const foreign = s.panes
      .filter((p) => !p.dead)
      .map((p) => processRoot(p.pid))
      .find((r) => r !== undefined && r !== ctx.root);
    if (foreign !== undefined) continue; // another root's team
    findings.push({
      check: 'orphan_session',
      severity: 'problem',
      problem: `tmux session ${s.name} (${s.panes.length} pane${s.panes.length === 1 ? '' : 's'}) belongs to no team: there is no team "${s.team}" under ${ctx.root}`,
      fix: `${sessions.killLine(s.team)}  (swarm doctor --fix does it)`,
      apply: async () => {
        await sessions.kill(s.team);
        return `killed tmux session ${s.name}`;
      },
    });
  }
  const passed = findings.length === 0 ? [`tmux: ${listed.length} swarm session${listed.length === 1 ? '' : 's'}, none orphaned`] : [];
  return { findings, passed };
}
