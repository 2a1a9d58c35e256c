// What every running command needs: the root, the team handle (from --team or SWARM_TEAM, made here
// once and passed down), a Mailbox that signs the leader's entries, and the output helpers for --json
// and human modes — all read from the running command's io (io.ts), never from `process` directly.
// (The global flags themselves, which parsing needs, are global-flags.ts.)
import { BACKEND_CHOICES, type BackendChoice } from '../backends/kinds.js';
import { cliIo } from './io.js';
import { SwarmError } from '../protocol/errors.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { resolveRoot } from '../team/paths.js';
import { readTeam } from '../team/team-store.js';
import { Team } from '../team/team.js';
import { chooseTeam } from './team-choice.js';
import type { GlobalArgs } from './global-flags.js';

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
