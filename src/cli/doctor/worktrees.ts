// `swarm doctor`'s worktree check (docs/protocol.md#agent-types-and-worktrees): the team's worktrees (teamWorktrees: on branches
// `swarm/<team>/*`, else attributed by exact path, never by another team's name prefix) and such
// branches without a worktree, whose member is no longer in the team. Usually the kept work of a teammate that stopped with changes: a warning whose fix
// is the exact plain-git review and cleanup. One with no commits and no changes is removed by --fix.
import { quote } from 'shell-quote';
import { readTeam } from '../../team/team-store.js';
import { settleWorktree, teamWorktrees, type WorktreeInfo } from '../../teammates/worktree.js';
import { listTeamDirs, type CheckResult, type DoctorContext, type Finding } from './machine-checks.js';

const git = (repo: string, ...args: string[]): string => quote(['git', '-C', repo, ...args]);

/** The exact commands that remove an orphaned worktree (or branch) and its branch. */
export function cleanupCommands(w: Pick<WorktreeInfo, 'repo' | 'path' | 'branch' | 'prunable'>): string {
  const dropBranch = git(w.repo, 'branch', '-D', w.branch);
  if (w.path === undefined) return dropBranch;
  if (w.prunable) return `${git(w.repo, 'worktree', 'prune')} && ${dropBranch}`;
  return `${git(w.repo, 'worktree', 'remove', '--force', w.path)} && ${dropBranch}`;
}

function finding(team: string, w: WorktreeInfo): Finding {
  const unchanged = w.ahead === 0 && w.dirty === false && w.path !== undefined && !w.prunable;
  const what = w.path === undefined ? `branch ${w.branch} (no worktree)` : `worktree ${w.path}${w.prunable ? ' (its directory is gone)' : ''} on branch ${w.branch}`;
  const state = [w.ahead === undefined ? undefined : `${w.ahead} commit${w.ahead === 1 ? '' : 's'} ahead`, w.dirty === true ? 'uncommitted changes' : undefined].filter((x) => x !== undefined);
  const review = w.base === undefined || unchanged ? '' : `review it (${git(w.repo, 'log', `${w.base.slice(0, 12)}..${w.branch}`)}), merge what you keep, then `;
  return {
    check: 'orphaned_worktree',
    severity: 'warning',
    team,
    path: w.path ?? w.repo,
    problem: `team ${team}: ${what} belongs to ${w.member}, who is no longer in the team${state.length > 0 ? ` (${state.join(', ')})` : ''}`,
    fix: `${review}${cleanupCommands(w)}`,
    ...(unchanged
      ? {
          apply: async () => {
            const fate = await settleWorktree(w.path!, team, w.member);
            if (fate.fate !== 'removed') throw new Error(`not removed: it changed meanwhile (${fate.reason ?? 'see swarm worktrees'})`);
            return `removed ${w.path} and branch ${w.branch} (no commits, no changes)`;
          },
        }
      : {}),
  };
}

export async function checkWorktrees(ctx: DoctorContext): Promise<CheckResult> {
  const findings: Finding[] = [];
  const passed: string[] = [];
  for (const team of await listTeamDirs(ctx)) {
    const config = await readTeam(team).catch(() => undefined); // an unreadable config is team-checks' finding
    if (config === undefined) continue;
    const all = await teamWorktrees(config, ctx.exec);
    const orphans = all.filter((w) => !w.active);
    findings.push(...orphans.map((w) => finding(team.name, w)));
    if (all.length > 0 && orphans.length === 0) passed.push(`team ${team.name}: every worktree belongs to a member`);
  }
  return { findings, passed };
}
