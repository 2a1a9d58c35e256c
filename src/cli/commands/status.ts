// `swarm status [--watch] [--json]`: one table of the team (docs/protocol.md#cli). The command line
// only; what it does is cli/handlers/status.ts, loaded when it runs (the team files, liveness checks
// and watchers would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { StatusArgs } from '../handlers/status.js';

export const statusCommand: CommandModule<GlobalArgs, StatusArgs> = {
  command: 'status',
  describe: "one table of the team: liveness (checked for real), state, current task, heartbeat, unread, pending permissions, tokens, cost and the team total; a stopped member (process and pane gone) keeps its tasks and shows the swarm resume command",
  builder: (y) =>
    y
      .option('watch', { alias: 'w', type: 'boolean', default: false, describe: 'redraw every second and on changes, until Ctrl-C' })
      .example('$0 status --team review-squad', 'the table once')
      .example('$0 status --watch', 'keep it on screen (SWARM_TEAM set)')
      .example(`$0 status --json | jq -r '.members[] | select(.state == "stopped") | .resumeCommand'`, 'how to bring back who crashed'),
  handler: async (args) => (await import('../handlers/status.js')).status(args),
};
