// `swarm lead`: the leader console (docs/protocol.md#cli) for a team, in this terminal. Also the team's
// in-process host: teammates spawned with `--backend in-process` run inside this process.
// `swarm lead --agent` puts an agent lead (docs/protocol.md#agent-lead) in the console of an existing team: what you
// type goes to it. A console opened while another process holds the team's leader lease watches;
// `--take-over` asks that console to hand over and waits for it. SIGTERM or SIGHUP (its terminal
// closed) leaves the console as /quit does and then ends the process by that signal (cli/interrupts.ts).
//
// `swarm demo` runs this command in the first pane of its team's tmux session and tells it, through
// the environment (console/session-env.ts), what to show first, the hint for an all-idle team, to end
// with the team, and the agent lead's goal.
//
// The command line only; what it does is cli/handlers/lead.ts, loaded when it runs (the console,
// the agent lead and the Messages API SDK would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { LeadCommandArgs } from '../handlers/lead.js';
import { leadOptions } from '../run/options.js';

export const leadCommand: CommandModule<GlobalArgs, LeadCommandArgs> = {
  command: 'lead',
  describe: "the leader console: team-lead's inbox live, permission/plan questions (y/a/n), /commands",
  builder: (y) =>
    leadOptions(
      refuseGlobals(y, 'lead', { json: 'the console is interactive; for data use swarm inbox team-lead --follow --json' }).option('agent', {
        type: 'boolean',
        default: false,
        describe: 'an agent lead in the console: what you type goes to it (the lead options below apply)',
      })
        .option('take-over', {
          type: 'boolean',
          default: false,
          describe: "ask the console that takes delivery of team-lead's inbox to hand it over, and wait for it (a second console only watches)",
        }),
    )
      .example('$0 lead --team review-squad', 'open the console')
      .example('SWARM_TEAM=review-squad $0 lead', 'the same, team from the environment')
      .example('$0 lead --agent --team review-squad --budget-usd 1', 'an agent lead for an existing team')
      .example('$0 lead --take-over --team review-squad', 'take delivery from the console open in another terminal'),
  handler: async (args) => (await import('../handlers/lead.js')).lead(args),
};
