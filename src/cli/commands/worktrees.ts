// `swarm worktrees [--json]`: the team's git worktrees (docs/protocol.md#agent-types-and-worktrees).
// The command line only; what it does is cli/handlers/worktrees.ts, loaded when it runs (git and
// the team files would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';

export const worktreesCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'worktrees',
  describe: "list the team's git worktrees (member, path, branch, base, ahead, dirty), kept ones included",
  builder: (y) =>
    y
      .example('$0 worktrees --team review-squad', 'worktrees of running teammates and kept ones')
      .example('$0 worktrees --json | jq -r ".[] | select(.ahead > 0) | .branch"', 'branches with commits to review'),
  handler: async (args) => (await import('../handlers/worktrees.js')).worktrees(args),
};
