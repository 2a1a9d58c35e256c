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
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { runConsole } from '../console/run.js';
import { SESSION_ENV } from '../console/session-env.js';
import { refuseGlobals, requireTeam, type GlobalArgs } from '../context.js';
import { refuseOtherLeader } from '../run/lead-process.js';
import { leadOptions, leadSettings, requireModelCredentials, type LeadArgs } from '../run/options.js';
import { cliIo, stdinIsDeadDevice } from '../io.js';

interface LeadCommandArgs extends GlobalArgs, LeadArgs {
  agent: boolean;
  'take-over': boolean;
}

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
  handler: async (args) => {
    if (args.agent) requireModelCredentials(cliIo().env, 'swarm lead --agent', 'claude mcp add swarm -- swarm mcp --team <team>, then ask Claude Code to lead it');
    // Piped /commands are a scripted console; /dev/null (or a closed terminal) would only quit at once.
    if (stdinIsDeadDevice(cliIo().stdin)) {
      throw new SwarmError('invalid_input', "swarm lead needs a terminal (it reads your keys): run it in a terminal or a tmux pane; from a script, use 'swarm inbox team-lead --follow' and 'swarm approve <id>'");
    }
    const team = await requireTeam(args);
    const env = cliIo().env;
    const goal = env[SESSION_ENV.goal];
    const lead = args.agent ? { ...leadSettings(args, env, cliIo().cwd), ...(goal ? { goal } : {}) } : undefined;
    if (lead && !args['take-over']) await refuseOtherLeader(team);
    const banner = env[SESSION_ENV.banner]?.split('\n') ?? [];
    const hint = env[SESSION_ENV.idleHint];
    const endWithLastTeammate = env[SESSION_ENV.endWithTeam] === '1';
    await runConsole({ team, env, banner, endWithLastTeammate, ...(hint ? { allIdleHint: hint } : {}), ...(lead ? { lead } : {}), takeOver: args['take-over'], dieOfInterrupt: true });
  },
};
