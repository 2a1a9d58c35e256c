// A team in a fresh temp root, for tests of the files a team keeps (mailbox, follow, send): before
// each test, a temp CLAUDE_CONFIG_DIR (removed afterwards) with the team created and the given
// members added after team-lead, in order. Also errorKind, what a rejected call's SwarmError says.
import { beforeEach } from 'vitest';
import { isSwarmError, type ErrorKind } from '../../src/protocol/errors.js';
import { addMember, createTeam, Team } from '../../src/team/index.js';
import { useTempRoot } from './tmp-root.js';

/** Registers the beforeEach that makes the team in the test's root; `set` gets the root first. */
export function useTeamRoot(team: string, members: readonly string[], set: (root: string) => void): void {
  let root = '';
  useTempRoot((dir) => {
    root = dir;
    set(dir);
  });
  beforeEach(async () => {
    await createTeam(root, { name: team });
    for (const name of members) await addMember(new Team(root, team), { name });
  });
}

/** 'ok' when `p` resolves, the SwarmError's kind when it rejects with one, and what else it was otherwise. */
export async function errorKind(p: Promise<unknown>): Promise<ErrorKind | 'ok' | string> {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return isSwarmError(e) ? e.kind : `not a SwarmError: ${String(e)}`;
  }
}
