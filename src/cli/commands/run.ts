// `swarm run "<goal>"` (docs/protocol.md#agent-lead): give the team a goal and an agent lead that
// turns it into tasks and teammates and has the result verified. The command line only; what it
// does is cli/handlers/run.ts, loaded when it runs (the console, the agent lead and the Messages API
// SDK would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { RunArgs } from '../handlers/run.js';
import { leadOptions } from '../run/options.js';

/** Who leads: swarm's agent lead (a model through the Messages API) or Claude Code through swarm's MCP server. */
const LEADS = ['swarm', 'claude'] as const;

export const runCommand: CommandModule<GlobalArgs, RunArgs> = {
  command: 'run <goal>',
  describe: 'give a team a goal: an agent lead plans it as tasks, spawns teammates, and has the result verified',
  builder: (y) =>
    leadOptions(
      refuseGlobals(y, 'run', { json: 'the answer is text: swarm run -p "<goal>" prints it on stdout' })
        .positional('goal', { type: 'string', demandOption: true, describe: 'what the team should achieve' })
        .option('print', { alias: 'p', type: 'boolean', default: false, describe: 'headless: no console; progress on stderr, the answer on stdout' })
        .option('lead', { type: 'string', choices: LEADS, default: 'swarm', describe: "who leads: swarm's agent lead (model credentials), or Claude Code (claude on PATH; a subscription is enough)" }),
      'by lead',
    )
      .example('$0 run "add a --verbose flag to the CLI, with tests"', 'a team and its lead, in the console')
      .example('$0 run --lead claude "add a --verbose flag to the CLI, with tests"', 'Claude Code leads, no API key: it in this pane, the console beside it')
      .example('$0 run -p "fix the failing test in test/app.test.ts" --budget-usd 2 > answer.txt', 'headless, for scripts and CI'),
  handler: async (args) => (await import('../handlers/run.js')).run(args),
};
