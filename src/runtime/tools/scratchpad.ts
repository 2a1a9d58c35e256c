// What a teammate's file tools may do in the team's scratchpad (docs/scratchpad.md), declared once.
// The permission gate lets Write and Edit of a real path inside it run without asking in every mode
// but plan (permission-gate.ts); reads run anyway. Because nobody is asked, a path into it must stay
// in it: PathGuard.resolve (paths.ts) calls `check`, which refuses a path that names the scratchpad
// but uses `..`, one whose real path leaves it (a symlink in it pointing out), and a file in it with
// more than one hard link (another name could be anywhere). Write and Edit call `checkRoom` before
// they change a byte (checked-file.ts): one file at most SCRATCHPAD_MAX_FILE_BYTES, the whole
// scratchpad at most SCRATCHPAD_MAX_BYTES. The total is counted at each write, without a lock, so
// two members writing at the same moment can pass it together: a limit against runaway output, not
// a quota. Bash is not inspected (it asks in default mode anyway), and a Claude Code teammate is
// held by its own permission rules, not by these checks.
// The scratchpad's real path is taken once, when the member starts: should the directory be replaced
// by a link later, paths through it lead out of that real path and are refused.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SwarmError } from '../../protocol/errors.js';
import { ensureScratchpad } from '../../team/scratchpad.js';
import type { Team } from '../../team/team.js';
import { isInside } from './paths.js';

const MIB = 1024 * 1024;
/** One file in the scratchpad: at most 1 MiB. */
export const SCRATCHPAD_MAX_FILE_BYTES = 1 * MIB;
/** Everything in the scratchpad together: at most 50 MiB. */
export const SCRATCHPAD_MAX_BYTES = 50 * MIB;

/** "1 MiB a file, 50 MiB in all": the limits as prompts and errors name them. */
export const SCRATCHPAD_LIMITS = `${mib(SCRATCHPAD_MAX_FILE_BYTES)} a file, ${mib(SCRATCHPAD_MAX_BYTES)} in all`;

function mib(bytes: number): string {
  return `${bytes / MIB} MiB`;
}

/** A path's segments as written (relative ones after the cwd), `..` kept. */
function writtenSegments(cwd: string, input: string): string[] {
  return (path.isAbsolute(input) ? input : `${cwd}/${input}`).split('/');
}

/** The bytes of every regular file under `dir` (links not followed, nothing counted twice by inode). */
async function usedBytes(dir: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const walk = async (d: string): Promise<void> => {
    const entries = await fs.readdir(d, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) {
        const st = await fs.lstat(p).catch(() => undefined);
        if (st === undefined || seen.has(`${st.dev}:${st.ino}`)) continue;
        seen.add(`${st.dev}:${st.ino}`);
        total += st.size;
      }
    }
  };
  await walk(dir);
  return total;
}

export class Scratchpad {
  private constructor(
    /** `<root>/scratchpad/<team>`, as the root is written. */
    readonly dir: string,
    /** Its real path (the root may be a link). */
    readonly real: string,
  ) {}

  /** The team's scratchpad, made if missing (team/scratchpad.ts refuses one that is a link). */
  static async open(team: Team): Promise<Scratchpad> {
    const dir = await ensureScratchpad(team);
    return new Scratchpad(dir, await fs.realpath(dir));
  }

  /** Is this absolute path (either form) inside the scratchpad? */
  contains(p: string): boolean {
    return isInside(this.dir, p) || isInside(this.real, p);
  }

  /**
   * Refuse a path into the scratchpad that could lead out of it or name another file too: `input`
   * as the model wrote it (relative to `cwd`), `abs` resolved, `real` with links followed.
   */
  async check(input: string, cwd: string, abs: string, real: string): Promise<void> {
    const segments = writtenSegments(cwd, input);
    const up = segments.indexOf('..');
    if (up !== -1 && (this.contains(path.resolve('/', ...segments.slice(0, up))) || this.contains(abs) || this.contains(real))) {
      throw new SwarmError('invalid_input', `${input}: a path into the scratchpad may not use '..'; name the file by its absolute path, ${path.join(this.dir, '<file>')}`);
    }
    if (this.contains(abs) && !this.contains(real)) {
      throw new SwarmError('invalid_input', `${abs} leads out of the scratchpad ${this.dir} through a symbolic link (to ${real}); use a file inside the scratchpad itself, or a path outside it, which asks as usual`);
    }
    if (!this.contains(real)) return;
    const st = await fs.lstat(real).catch(() => undefined);
    if (st !== undefined && !st.isDirectory() && st.nlink > 1) {
      throw new SwarmError('invalid_input', `${abs} has ${st.nlink} hard links, and a scratchpad file may have only one name (another could be anywhere); Write a new file instead`);
    }
  }

  /** Refuse a write of `after` bytes over a file of `before` bytes at `real` when it breaks a limit. */
  async checkRoom(real: string, shown: string, before: number, after: number): Promise<void> {
    if (!this.contains(real)) return;
    if (after > SCRATCHPAD_MAX_FILE_BYTES) {
      throw new SwarmError(
        'invalid_input',
        `${shown} not written: it would be ${after} bytes, over the scratchpad's limit of ${mib(SCRATCHPAD_MAX_FILE_BYTES)} (${SCRATCHPAD_MAX_FILE_BYTES} bytes) a file; write a summary instead, or split it into smaller files`,
      );
    }
    const total = (await usedBytes(this.real)) - before + after;
    if (total > SCRATCHPAD_MAX_BYTES) {
      throw new SwarmError(
        'invalid_input',
        `${shown} not written: the scratchpad ${this.dir} would hold ${total} bytes, over its limit of ${mib(SCRATCHPAD_MAX_BYTES)} (${SCRATCHPAD_MAX_BYTES} bytes) in all; overwrite files nobody needs any more with a short summary, or ask team-lead to clear it`,
      );
    }
  }
}
