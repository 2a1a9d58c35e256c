// What every command needs: the root, the team (from --team or SWARM_TEAM), a Mailbox that signs
// the leader's entries, and the output helpers for --json and human modes.
import { SwarmError } from '../protocol/errors.js';
import { assertTeamName } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { resolveRoot } from '../team/paths.js';
import { readTeam } from '../team/team-store.js';

export interface GlobalArgs {
  team?: string;
  json?: boolean;
}

export function rootDir(): string {
  return resolveRoot(process.env);
}

export function requireTeam(args: GlobalArgs): string {
  const team = args.team ?? process.env.SWARM_TEAM;
  if (!team) throw new SwarmError('invalid_input', 'no team given: pass --team <name> or set SWARM_TEAM (see swarm team list)');
  return assertTeamName(team);
}

/** The mailbox as the leader uses it: entries written as team-lead are signed. */
export async function openMailbox(root: string, team: string): Promise<Mailbox> {
  await readTeam(root, team); // not_found before a lead key is made for a team that does not exist
  return (await openLeadMailbox({ root, team })).mailbox;
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function println(line = ''): void {
  process.stdout.write(`${line}\n`);
}
