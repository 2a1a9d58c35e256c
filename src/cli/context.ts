// What every command needs: the root, the team handle (from --team or SWARM_TEAM, made here once
// and passed down), a Mailbox that signs the leader's entries, and the output helpers for --json and
// human modes — all read from the running command's io (io.ts), never from `process` directly.
import type { Argv } from 'yargs';
import { BACKEND_CHOICES, type BackendChoice } from '../backends/registry.js';
import { cliIo } from './io.js';
import { SwarmError } from '../protocol/errors.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { resolveRoot } from '../team/paths.js';
import { readTeam } from '../team/team-store.js';
import { Team } from '../team/team.js';
import { chooseTeam } from './team-choice.js';

export interface GlobalArgs {
  team?: string;
  json?: boolean;
}

type GlobalFlag = keyof GlobalArgs;

/**
 * For a command that does not use some of the global flags: leave them out of its --help, and
 * refuse them (exit 2) rather than ignore them. `flags` maps each flag to what to use instead ('' for nothing).
 */
export function refuseGlobals<T>(y: Argv<T>, command: string, flags: Partial<Record<GlobalFlag, string>>): Argv<T> {
  const names = Object.keys(flags) as GlobalFlag[];
  return names.reduce((acc, f) => acc.hide(f), y).check((argv) => {
    const given = names.find((f) => (f === 'json' ? argv.json === true : argv.team !== undefined));
    if (given === undefined) return true;
    const instead = flags[given];
    throw new SwarmError('invalid_input', `--${given} is not an option of swarm ${command}${instead ? `: ${instead}` : ''}`);
  });
}

export function rootDir(): string {
  return resolveRoot(cliIo().env);
}

/**
 * The handle of the team the command means: --team, else SWARM_TEAM, else the team whose tmux
 * session you are in, else the only live team (cli/team-choice.ts); validates the name.
 */
export async function requireTeam(args: GlobalArgs): Promise<Team> {
  return chooseTeam(args.team, { root: rootDir(), env: cliIo().env });
}

/** The mailbox as the leader uses it: entries written as team-lead are signed. */
export async function openMailbox(team: Team): Promise<Mailbox> {
  await readTeam(team); // not_found before a lead key is made for a team that does not exist
  return (await openLeadMailbox({ team })).mailbox;
}

export function printJson(value: unknown): void {
  cliIo().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(line = ''): void {
  cliIo().stdout.write(`${line}\n`);
}

/** The backend asked for: the flag, else the team's `swarm.backend`, else auto; one line for an unknown one. */
export async function requestedBackend(team: Team, flag: string | undefined): Promise<BackendChoice> {
  const requested = flag ?? (await readTeam(team)).swarm?.backend ?? 'auto';
  if (!(BACKEND_CHOICES as readonly string[]).includes(requested)) {
    throw new SwarmError('invalid_input', `expected a backend ${BACKEND_CHOICES.join('|')}, got ${JSON.stringify(requested)} (team setting swarm.backend)`);
  }
  return requested as BackendChoice;
}
