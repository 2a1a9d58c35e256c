// `swarm launch <file>` (docs/protocol.md#cli): the command line; what it does is cli/launch/run-launch.ts,
// loaded only when it runs (team files, YAML, the start-up code would cost every other command
// start-up time).
import type { CommandModule } from 'yargs';
import { HIBERNATE_AFTER_HELP } from '../run/options.js';
import { BACKEND_CHOICES } from '../../backends/kinds.js';
import type { GlobalArgs } from '../global-flags.js';
import type { LaunchArgs } from '../launch/run-launch.js';

export const launchCommand: CommandModule<GlobalArgs, LaunchArgs> = {
  command: 'launch <file>',
  describe: 'create a team from a team file (YAML), spawn every member, and open the leader console',
  builder: (y) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'team file (see examples/)' })
      .option('console', { type: 'boolean', default: true, describe: 'run the leader console afterwards (--no-console: just spawn)' })
      .option('hibernate-after', { type: 'string', describe: `${HIBERNATE_AFTER_HELP}; over the file's hibernateAfter` })
      .option('dry-run', { type: 'boolean', default: false, describe: 'print every command it would run; write nothing' })
      .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: "where panes open (default: the file's backend, else auto)" })
      .option('rename', { type: 'boolean', default: false, describe: 'if the team exists, launch a second one under a free name (default: attach to it when it runs, else start it again)' })
      .option('fresh', {
        type: 'boolean',
        default: false,
        describe: "if the team exists and none of it runs, delete its files (tasks, inboxes) first and start from nothing (default: start it again, keeping them)",
      })
      .example('$0 launch examples/review-trio.yaml', 'start the team; the console opens here (inside tmux) or in swarm-<team>')
      .example('$0 launch team.yaml --dry-run', 'what it would run')
      .example('$0 launch team.yaml --no-console --backend tmux', 'spawn only, print the status table')
      .example('$0 launch team.yaml --rename', 'a second team from the same file, under a free name')
      .example('$0 launch team.yaml --fresh', 'the team was shut down: start it from nothing, not again with its tasks and inboxes'),
  handler: async (args) => {
    const { runLaunch } = await import('../launch/run-launch.js');
    await runLaunch(args);
  },
};
