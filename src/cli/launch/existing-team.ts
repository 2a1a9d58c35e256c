// `swarm launch` of a team file whose team already exists. Like tmuxinator, launching a team that
// is running attaches to it instead of starting a twin (a second full team, with a real key twice
// the spend); a new team under a free name only with --rename. What happens:
// - some teammate is alive, and this is a terminal that wants the console: its console is opened
//   here when none runs; when one runs, this terminal is taken to the team's panes (tmux attach);
// - some teammate is alive, but --no-console, no terminal, or no way to attach: a one-line error
//   with the exact command that reaches the team, exit 1;
// - no teammate is alive (all dead, or none yet): a one-line error pointing to `swarm team delete`
//   and --rename, exit 1; the team's files are left as they are.
import { backendForMember, paneRefOf } from '../../backends/registry.js';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { collectStatus } from '../../teammates/status-report.js';
import { runConsole } from '../console/run.js';
import { chalk } from '../output/render.js';

export interface LaunchExistingOptions {
  env: NodeJS.ProcessEnv;
  /** The console was asked for (not --no-console). */
  withConsole: boolean;
  /** stdin and stdout are a terminal. */
  terminal: boolean;
  print(line: string): void;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Attach to, or say how to reach, an existing team; throws SwarmError('exists') when it will not. */
export async function launchExisting(team: Team, o: LaunchExistingOptions): Promise<void> {
  const name = team.name;
  const { report } = await collectStatus(team, { env: o.env });
  const [leader, ...teammates] = report.members;
  const alive = teammates.filter((m) => m.alive === true);
  const consoleRunning = leader?.state === 'leading';
  if (alive.length === 0) {
    const what =
      teammates.length === 0 ? 'it has no teammates' : teammates.length === 1 ? 'its teammate is not running' : `none of its ${teammates.length} teammates is running`;
    throw new SwarmError(
      'exists',
      `team "${name}" already exists and ${what}; remove it with 'swarm team delete ${name}' and launch again, or launch a second team under a free name with --rename`,
    );
  }
  const config = await readTeam(team);
  const first = config.members.find((m) => m.name !== LEAD_NAME && m.name === alive[0]!.name)!;
  const backend = backendForMember(first, team, { env: o.env });
  const pane = paneRefOf(first);
  const reach = backend.howToReach(pane);
  const running = `team "${name}" is already running (${plural(alive.length, 'teammate')} alive${consoleRunning ? ', its console open' : ''})`;
  if (o.withConsole && o.terminal && !consoleRunning) {
    o.print(chalk.yellow(`${running}: opening its console here (its teammates' panes: ${reach})`));
    await runConsole({ team, env: o.env, dieOfInterrupt: true });
    return;
  }
  if (o.withConsole && o.terminal && backend.attach !== undefined) {
    o.print(chalk.yellow(`${running}: attaching (${reach})`));
    await backend.attach(pane);
    // Said again after: tmux flushes the terminal's pending output as it attaches, and its screen
    // covers what was printed, so the line above may never be seen.
    o.print(`detached; team "${name}" runs on (back to it: ${reach})`);
    return;
  }
  const why = !o.withConsole ? '--no-console' : !o.terminal ? 'not a terminal' : `${backend.type} cannot attach from here`;
  const lead = consoleRunning ? '' : `; its console: swarm lead --team ${name}`;
  throw new SwarmError('exists', `${running}; not attaching (${why}); to attach: ${reach}${lead} (--rename launches a second team under a free name)`);
}
