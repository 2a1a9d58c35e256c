// `swarm launch` of a team file whose team already exists. Like tmuxinator, launching a team that
// is running attaches to it instead of starting a twin (a second full team, with a real key twice
// the spend); a new team under a free name only with --rename. What happens (`existingTeam` decides):
// - some teammate is alive, and this is a terminal that wants the console: its console is opened
//   here when none runs; when one runs, this terminal is taken to the team's panes (tmux attach);
// - some teammate is alive, but --no-console, no terminal, or no way to attach: a one-line error
//   with the exact command that reaches the team, exit 1 (--fresh too: it never deletes a live team);
// - no teammate is alive (all shut down, crashed, or none yet): launch starts the team again from
//   the file, keeping its task list and inbox history (start-team.ts `again`), and resumes the
//   members that crashed (`stopped`: still in the roster, never shut down) with their conversation,
//   as `swarm resume` would; with --fresh the team's files are deleted first (as `swarm team
//   delete`) and it starts from nothing;
// - a teammate that may still run (`dead`: its process outlived its pane; `unknown`), or a console
//   open with no teammate: a one-line error saying what to stop first; nothing is started.
import { backendForMember, paneRefOf } from '../../backends/registry.js';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { collectStatus, type MemberStatus } from '../../teammates/status-report.js';
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

/** What launch does with a team that exists: go to it (a teammate is alive), or start it again (none is). */
export type ExistingTeam =
  | { running: true; alive: MemberStatus[]; consoleRunning: boolean }
  | {
      running: false;
      /** Crashed members (process and pane gone, never shut down): resumed. */
      stopped: string[];
      /** Every teammate still in the roster (the stopped ones: no other is left when none runs). */
      roster: string[];
    };

/**
 * Look at an existing team's teammates (reads only). Throws SwarmError('exists') when none is alive
 * but one may still run, or its console is open: launch starts no second copy of anything.
 */
export async function existingTeam(team: Team, env: NodeJS.ProcessEnv): Promise<ExistingTeam> {
  const { report } = await collectStatus(team, { env });
  const [leader, ...teammates] = report.members;
  const alive = teammates.filter((m) => m.alive === true);
  const consoleRunning = leader?.state === 'leading';
  if (alive.length > 0) return { running: true, alive, consoleRunning };
  const name = team.name;
  const doubt = teammates.find((m) => m.alive === null || m.state === 'dead');
  if (doubt !== undefined) {
    const why = doubt.state === 'dead' ? `its pane is gone but its process ${doubt.pid ?? '?'} still runs` : 'its backend cannot tell whether it runs';
    throw new SwarmError('exists', `team "${name}" may still be running: ${doubt.name} is ${doubt.state} (${why}); stop it first (swarm kill ${doubt.name} --team ${name}), then launch again`);
  }
  if (consoleRunning) {
    throw new SwarmError('exists', `team "${name}" has no teammate running, but its console is open (pid ${leader!.pid ?? '?'}); spawn from that console, or quit it (/quit) and launch again`);
  }
  return { running: false, stopped: teammates.filter((m) => m.state === 'stopped').map((m) => m.name), roster: teammates.map((m) => m.name) };
}

/** Attach to, or say how to reach, a team with a live teammate (`existingTeam` said `running`); throws SwarmError('exists') when it will not. */
export async function launchExisting(team: Team, state: Extract<ExistingTeam, { running: true }>, o: LaunchExistingOptions): Promise<void> {
  const name = team.name;
  const { alive, consoleRunning } = state;
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
