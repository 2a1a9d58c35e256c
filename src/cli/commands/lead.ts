// `swarm lead`: the leader console (SPEC §6) for a team, in this terminal. Also the team's
// in-process host: teammates spawned with `--backend in-process` run inside this process.
// `swarm lead --agent` puts an agent lead (SPEC §9) in the console of an existing team: what you
// type goes to it.
import { fstatSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { runConsole } from '../console/run.js';
import { refuseGlobals, requireTeam, type GlobalArgs } from '../context.js';
import { refuseOtherLeader } from '../run/lead-process.js';
import { leadOptions, leadSettings, type LeadArgs } from '../run/options.js';

interface LeadCommandArgs extends GlobalArgs, LeadArgs {
  agent: boolean;
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
      }),
    )
      .example('$0 lead --team review-squad', 'open the console')
      .example('SWARM_TEAM=review-squad $0 lead', 'the same, team from the environment')
      .example('$0 lead --agent --team review-squad --budget-usd 1', 'an agent lead for an existing team'),
  handler: async (args) => {
    // Piped /commands are a scripted console; /dev/null (or a closed terminal) would only quit at once.
    if (!process.stdin.isTTY && fstatSync(0).isCharacterDevice()) {
      throw new SwarmError('invalid_input', "swarm lead needs a terminal (it reads your keys): run it in a terminal or a tmux pane; from a script, use 'swarm inbox team-lead --follow' and 'swarm approve <id>'");
    }
    const team = requireTeam(args);
    const lead = args.agent ? leadSettings(args, process.env, process.cwd()) : undefined;
    if (lead) await refuseOtherLeader(team);
    // Set by `swarm demo` / `swarm launch` for the console they start in a tmux session.
    const banner = process.env.SWARM_LEAD_BANNER?.split('\n') ?? [];
    const hint = process.env.SWARM_LEAD_IDLE_HINT;
    const endWithLastTeammate = process.env.SWARM_LEAD_END_WITH_TEAM === '1';
    await runConsole({ team, env: process.env, banner, endWithLastTeammate, ...(hint ? { allIdleHint: hint } : {}), ...(lead ? { lead } : {}) });
  },
};
