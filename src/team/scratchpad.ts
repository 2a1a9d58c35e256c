// The team's scratchpad directory, `<root>/scratchpad/<team>/` (docs/scratchpad.md): where members
// leave findings for each other and for the lead. Made 0700 with the team (team-store.ts createTeam)
// and again, if missing, before a member is started (an older team, or one removed by hand);
// removed with the team (deleteTeam). Never used through a link: `scratchpad/` or `scratchpad/<team>`
// being a symlink is refused, since teammates write there without asking and a link could point
// the scratchpad at the project itself. What a teammate may do in it: runtime/tools/scratchpad.ts.
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { ensureDir, refuseLinkedDir } from '../storage/atomic.js';
import { scratchpadsDir } from './paths.js';
import type { Team } from './team.js';

/** Make the team's scratchpad (0700) unless it is there; its path. Throws when it (or `scratchpad/`) is a link or not a directory. */
export async function ensureScratchpad(team: Team): Promise<string> {
  const dir = team.paths.scratchpad;
  refuseLinkedDir(scratchpadsDir(team.root));
  refuseLinkedDir(dir);
  try {
    await ensureDir(dir);
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST' && errnoCode(e) !== 'ENOTDIR') throw e;
    throw new SwarmError('io', `${dir} (the team's scratchpad) is not a directory: move it away, and swarm makes the directory again`, { cause: e });
  }
  return dir;
}
