// What `swarm worktrees [--json]` does (the command line is commands/worktrees.ts): the team's git
// worktrees (docs/protocol.md#agent-types-and-worktrees) — those of worktree teammates still
// running and those kept when a teammate with changes stopped — with member, path, branch, base,
// commits ahead and whether it has uncommitted changes. docs/worktrees.md says how to review and
// merge a kept branch.
import { readTeam } from '../../team/team-store.js';
import { teamWorktrees, type WorktreeInfo } from '../../teammates/worktree.js';
import { printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { renderTable, type Cell } from '../output/table.js';

function row(w: WorktreeInfo): Cell[] {
  const where = w.path === undefined ? { text: '(no worktree: branch only)', style: chalk.dim } : { text: w.prunable ? `${w.path} (gone)` : w.path };
  return [
    { text: w.member, style: chalk.bold },
    where,
    { text: w.branch },
    { text: w.base === undefined ? 'base ?' : `base ${w.base.slice(0, 12)}` },
    { text: w.ahead === undefined ? '? ahead' : `${w.ahead} ahead` },
    w.dirty === true ? { text: 'dirty', style: chalk.yellow } : { text: w.dirty === false ? 'clean' : '' },
    w.active ? { text: 'running' } : { text: 'member gone: kept for review', style: chalk.dim },
  ];
}

export async function worktrees(args: GlobalArgs): Promise<void> {
  const list = await teamWorktrees(await readTeam(await requireTeam(args)));
  if (args.json) return printJson(list);
  if (list.length === 0) return println(chalk.dim('no worktrees: spawn with --isolation worktree to give a teammate one'));
  for (const line of renderTable(list.map(row))) println(line);
}
