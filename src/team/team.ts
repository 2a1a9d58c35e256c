// The team handle: one team under one root, its paths built once (docs/protocol.md#root-layout). Made at the edge (each
// CLI command via cli/context, the teammate runtime's entry, the console, launch) and passed down,
// so no layer below turns a (root, name) pair back into paths. Config access: team/team-store.
import { teamPaths, type TeamPaths } from './paths.js';

export class Team {
  readonly paths: TeamPaths;

  /** Validates `name` (SwarmError('invalid_name')) before any file is touched. */
  constructor(
    readonly root: string,
    readonly name: string,
  ) {
    this.paths = teamPaths(root, name);
  }
}
