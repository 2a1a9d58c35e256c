// What `swarm lead` does (the command line is commands/lead.ts): the leader console for a team in
// this terminal, with an agent lead in it under --agent; it ends the process by the signal that
// left it (cli/interrupts.ts).
import { SwarmError } from '../../protocol/errors.js';
import { runConsole } from '../console/run.js';
import { SESSION_ENV } from '../console/session-env.js';
import { requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { refuseOtherLeader } from '../run/lead-process.js';
import { leadSettings, requireModelCredentials, type LeadArgs } from '../run/options.js';
import { cliIo, stdinIsDeadDevice } from '../io.js';
import { setHibernateAfter } from '../../team/team-store.js';

export interface LeadCommandArgs extends GlobalArgs, LeadArgs {
  agent: boolean;
  'take-over': boolean;
}

export async function lead(args: LeadCommandArgs): Promise<void> {
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
  if (lead) await setHibernateAfter(team, lead.hibernateAfterMs);
  const banner = env[SESSION_ENV.banner]?.split('\n') ?? [];
  const hint = env[SESSION_ENV.idleHint];
  const endWithLastTeammate = env[SESSION_ENV.endWithTeam] === '1';
  await runConsole({ team, env, banner, endWithLastTeammate, ...(hint ? { allIdleHint: hint } : {}), ...(lead ? { lead } : {}), takeOver: args['take-over'], dieOfInterrupt: true });
}
