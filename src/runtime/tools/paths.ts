// Where file tools may go. Relative paths resolve against the teammate's cwd; anything under the
// root's `teams/` (inboxes, permission records, status) or `swarm/` (the leader's key) is refused
// (docs/protocol.md#what-a-teammate-may-write), without asking the leader. The check is realpath-aware: every existing component is
// resolved, a dangling symlink is followed to where it would write, so a link cannot smuggle a
// path in. A hard link has no path to resolve, so what the tools open is also compared by
// device/inode with every file under those directories (`isProtectedFile`, checked-file.ts).
// A path into the team's scratchpad is checked too (scratchpad.ts): no `..`, no link out of it.
// (Not a boundary against a hostile process of the same user: see docs/security.md.)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../../protocol/errors.js';
import { swarmDir, teamsDir } from '../../team/paths.js';
import type { Scratchpad } from './scratchpad.js';

const MAX_LINKS = 40;

/** The real path `p` refers to, or would refer to once created (symlinks followed, missing tails kept). */
export async function realpathLoose(p: string, depth = 0): Promise<string> {
  if (depth > MAX_LINKS) throw new SwarmError('invalid_input', `too many levels of symbolic links at ${p}`);
  try {
    return await fs.realpath(p);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT' && errnoCode(e) !== 'ENOTDIR') throw e;
  }
  let st;
  try {
    st = await fs.lstat(p);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    const target = path.resolve(path.dirname(p), await fs.readlink(p));
    return realpathLoose(target, depth + 1);
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  return path.join(await realpathLoose(parent, depth), path.basename(p));
}

export function isInside(dir: string, p: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export class PathGuard {
  private constructor(
    readonly cwd: string,
    /** Both the literal and the real form of each protected directory. */
    private readonly protectedDirs: readonly string[],
    /** The team's scratchpad, when the tools run for a member of a team (scratchpad.ts). */
    readonly scratchpad: Scratchpad | undefined,
  ) {}

  static async create(root: string, cwd: string, scratchpad?: Scratchpad): Promise<PathGuard> {
    const dirs = [teamsDir(root), swarmDir(root)];
    const all = new Set<string>();
    for (const d of dirs) {
      all.add(path.resolve(d));
      all.add(await realpathLoose(path.resolve(d)));
    }
    return new PathGuard(cwd, [...all], scratchpad);
  }

  /**
   * Is the file with this device and inode one of the files under teams/ or swarm/, by any name?
   * Walks those trees (links not followed) each time: their files are replaced on every write.
   */
  async isProtectedFile(st: { dev: number; ino: number }): Promise<boolean> {
    const seen = new Set<string>();
    const walk = async (dir: string): Promise<boolean> => {
      let entries;
      try {
        const self = await fs.stat(dir);
        if (seen.has(`${self.dev}:${self.ino}`)) return false;
        seen.add(`${self.dev}:${self.ino}`);
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        return false; // missing or unreadable: nothing of it can be open
      }
      const found = await Promise.all(
        entries.map(async (e) => {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) return walk(p);
          const other = await fs.lstat(p).catch(() => undefined);
          return other !== undefined && other.dev === st.dev && other.ino === st.ino;
        }),
      );
      return found.includes(true);
    };
    return (await Promise.all(this.protectedDirs.map(walk))).includes(true);
  }

  /** Is this absolute, real path protected? (Used by walkers, which do not follow links.) */
  isProtected(real: string): boolean {
    return this.protectedDirs.some((d) => isInside(d, real));
  }

  /**
   * The absolute path for a tool's `file_path`/`path` (relative to cwd), refused when it (or what
   * it links to) is under teams/ or swarm/, or when it goes into the scratchpad unsafely
   * (Scratchpad.check). Returns the path as given (resolved) and its real form.
   */
  async resolve(input: string, field = 'file_path'): Promise<{ abs: string; real: string }> {
    if (input.includes('\0')) throw new SwarmError('invalid_input', `${field}: contains a NUL character`);
    const abs = path.resolve(this.cwd, input);
    const real = await realpathLoose(abs);
    if (this.isProtected(abs) || this.isProtected(real)) {
      throw new SwarmError(
        'invalid_input',
        `${abs} is inside the team's own files (${this.protectedDirs.join(', ')}); teammates may not touch them. Use SendMessage to talk to the team.`,
      );
    }
    await this.scratchpad?.check(input, this.cwd, abs, real);
    return { abs, real };
  }
}
