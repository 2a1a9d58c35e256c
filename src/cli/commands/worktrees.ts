// `swarm worktrees [--json]`: the team's git worktrees (docs/protocol.md#agent-types-and-worktrees) — those of worktree teammates
// still running and those kept when a teammate with changes stopped — with member, path, branch,
// base, commits ahead and whether it has uncommitted changes. docs/worktrees.md says
// how to review and merge a kept branch.
import type { CommandModule } from 'yargs';
import { readTeam } from '../../team/team-store.js';
import { teamWorktrees, type WorktreeInfo } from '../../teammates/worktree.js';
import { printJson, println, requireTeam, type GlobalArgs } from '../context.js';
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

export const worktreesCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'worktrees',
  describe: "list the team's git worktrees (member, path, branch, base, ahead, dirty), kept ones included",
  builder: (y) =>
    y
      .example('$0 worktrees --team review-squad', 'worktrees of running teammates and kept ones')
      .example('$0 worktrees --json | jq -r ".[] | select(.ahead > 0) | .branch"', 'branches with commits to review'),
  handler: async (args) => {
    const list = await teamWorktrees(await readTeam(await requireTeam(args)));
    if (args.json) return printJson(list);
    if (list.length === 0) return println(chalk.dim('no worktrees: spawn with --isolation worktree to give a teammate one'));
    for (const line of renderTable(list.map(row))) println(line);
  },
};
