// Which Write/Edit calls save a team memory (docs/memory.md). A target in the project's team memory
// directory — as typed (before `..` is resolved), as resolved, or by real path — must pass
// team/memory.ts checkMemoryPath (a plain `<name>.md` directly in the directory, no symbolic link,
// no other hard link) or the call is refused before the permission gate; one that passes runs
// without a question in every mode but plan (permission-gate.ts), like a read. A link from outside
// into the directory is refused too: a memory is written by its own path. The write itself still
// goes through checked-file.ts (no final symlink followed, no file with other links).
import path from 'node:path';
import { SwarmError } from '../../protocol/errors.js';
import { checkMemoryPath } from '../../team/memory.js';
import { isInside, realpathLoose } from './paths.js';

export class MemoryPaths {
  constructor(
    /** The team memory directory (team/paths.ts memoryDir), as built: not necessarily real, nor existing. */
    readonly dir: string,
  ) {}

  /**
   * Does a Write/Edit of `input` (typed, relative to `cwd`), resolved to `abs` and really `real`,
   * save a memory? False when it does not touch the directory; throws (one line) when it touches it
   * but is no plain memory file.
   */
  async saves(input: string, cwd: string, abs: string, real: string): Promise<boolean> {
    const realDir = await realpathLoose(this.dir);
    const dirs = [...new Set([this.dir, realDir])];
    const typed = path.isAbsolute(input) ? input : `${cwd}${path.sep}${input}`;
    const spelled = dirs.find((d) => typed.startsWith(`${d}${path.sep}`));
    if (spelled !== undefined) {
      await checkMemoryPath(this.dir, typed.slice(spelled.length + 1), abs);
      return true;
    }
    const resolved = dirs.find((d) => isInside(d, abs));
    if (resolved !== undefined) {
      await checkMemoryPath(this.dir, path.relative(resolved, abs), abs);
      return true;
    }
    if (dirs.some((d) => isInside(d, real))) {
      throw new SwarmError('invalid_input', `${abs} is a symbolic link into the team memory directory ${this.dir}: write the memory file by its own path there`);
    }
    return false;
  }
}
