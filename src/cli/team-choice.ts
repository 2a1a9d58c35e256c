// Which team a command means when --team is not given, in order: SWARM_TEAM; the team whose tmux
// session this shell is in (its `swarm-<team>` session, or a session holding one of its teammates'
// panes); the only live team under the root (a teammate's process, or its leader's, running).
// Otherwise one line: the live teams, or that there is none, and how to name one.
import type { MySession } from '../backends/registry.js';
import { LEAD_NAME } from '../protocol/names.js';
import { SwarmError } from '../protocol/errors.js';
import type { TeamConfig } from '../protocol/config.js';
import { isProcessAlive } from '../storage/pid.js';
import { readTeams } from '../team/team-store.js';
import { Team } from '../team/team.js';

export interface TeamChoiceContext {
  root: string;
  env: NodeJS.ProcessEnv;
  /** The tmux session of this shell (default: asked of tmux). */
  session?: () => Promise<MySession | undefined>;
  isAlive?: (pid: number) => boolean;
}

/** Whether any of the team's processes runs: a teammate's, or its leader's (the lease holder). */
function isLive(config: TeamConfig, alive: (pid: number) => boolean): boolean {
  const pids = [...config.members.filter((m) => m.name !== LEAD_NAME).map((m) => m.pid), config.leadProcess?.pid];
  return pids.some((pid) => pid !== undefined && alive(pid));
}

/** The team `--team`, else the rules above, name; a SwarmError (exit 2) when none does. */
export async function chooseTeam(given: string | undefined, c: TeamChoiceContext): Promise<Team> {
  const named = given ?? c.env.SWARM_TEAM;
  if (named) return new Team(c.root, named);
  const configs = (await readTeams(c.root)).flatMap((t) => ('config' in t ? [t] : [])); // an unreadable team is nobody's choice
  // The registry (tmux, execa) only when tmux is asked: a command given its team never loads it.
  const session = await (c.session ?? (async () => (await import('../backends/registry.js')).mySession(c.env)))().catch(() => undefined);
  if (session !== undefined) {
    const here = configs.find((t) => t.name === session.team) ?? configs.find((t) => t.config.members.some((m) => m.tmuxPaneId !== '' && session.paneIds.includes(m.tmuxPaneId)));
    if (here !== undefined) return new Team(c.root, here.name);
  }
  const live = configs.filter((t) => isLive(t.config, c.isAlive ?? isProcessAlive)).map((t) => t.name);
  if (live.length === 1) return new Team(c.root, live[0]!);
  const which = live.length === 0 ? 'no team is running' : `${live.length} teams are running (${live.join(', ')})`;
  throw new SwarmError('invalid_input', `no team given and ${which}: pass --team <name> or export SWARM_TEAM=<name> (swarm team list shows them all)`);
}
