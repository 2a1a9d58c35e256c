// `swarm lead`: the leader console (SPEC §6) for a team, in this terminal. Also the team's
// in-process host: teammates spawned with `--backend in-process` run inside this process.
import type { CommandModule } from 'yargs';
import { runConsole } from '../console/console.js';
import { requireTeam, type GlobalArgs } from '../context.js';

export const leadCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'lead',
  describe: "the leader console: team-lead's inbox live, permission/plan questions (y/a/n), /commands",
  builder: (y) =>
    y
      .example('$0 lead --team review-squad', 'open the console')
      .example('SWARM_TEAM=review-squad $0 lead', 'the same, team from the environment'),
  handler: async (args) => {
    // Set by `swarm demo` / `swarm launch` for the console they start in a tmux session.
    const banner = process.env.SWARM_LEAD_BANNER?.split('\n') ?? [];
    const hint = process.env.SWARM_LEAD_IDLE_HINT;
    await runConsole({ team: requireTeam(args), env: process.env, banner, ...(hint ? { allIdleHint: hint } : {}) });
  },
};
