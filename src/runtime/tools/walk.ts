// Walking a directory tree for Glob and Grep: depth-first, sorted, never following symlinked
// directories (a symlinked file is listed only if its target is a file outside the protected ones), skipping `.git`, `node_modules` (unless asked) and the team's protected
// directories, and stopping after `maxEntries` so a walk of `/` cannot run away.
import { promises as fs, type Dirent } from 'node:fs';
import path from 'node:path';

export interface WalkOptions {
  /** Skip this absolute directory? */
  skipDir?: (abs: string, name: string) => boolean;
  /** Is this real path off limits? (A symlinked file is listed only if its target is not.) */
  isProtected?: (real: string) => boolean;
  maxEntries?: number;
  signal?: AbortSignal;
}

export interface WalkedFile {
  abs: string;
  /** Relative to the walk's root, `/`-separated. */
  rel: string;
}

export const DEFAULT_SKIP = new Set(['.git', 'node_modules']);
export const MAX_WALK_ENTRIES = 200_000;

export interface WalkResult {
  files: WalkedFile[];
  /** True when the walk stopped at maxEntries. */
  capped: boolean;
}

export async function walkFiles(root: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const files: WalkedFile[] = [];
  const max = opts.maxEntries ?? MAX_WALK_ENTRIES;
  let seen = 0;
  const stack: string[] = [''];
  while (stack.length > 0) {
    opts.signal?.throwIfAborted();
    const relDir = stack.pop()!;
    const absDir = relDir === '' ? root : path.join(root, relDir);
    let entries: Dirent[];
    try {
      entries = await fs.readdir(absDir, { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished: skip, like rg does
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const dirs: string[] = [];
    for (const e of entries) {
      if (++seen > max) return { files, capped: true };
      const rel = relDir === '' ? e.name : `${relDir}/${e.name}`;
      const abs = path.join(absDir, e.name);
      if (e.isDirectory()) {
        if (opts.skipDir?.(abs, e.name)) continue;
        dirs.push(rel);
      } else if (e.isFile()) {
        files.push({ abs, rel });
      } else if (e.isSymbolicLink() && (await linkedFileAllowed(abs, opts))) {
        files.push({ abs, rel });
      }
    }
    for (const d of dirs.reverse()) stack.push(d); // the stack pops them in name order
  }
  return { files, capped: false };
}

/** A symlink is listed when it points at a regular file that is not protected (never a directory). */
async function linkedFileAllowed(abs: string, opts: WalkOptions): Promise<boolean> {
  try {
    const real = await fs.realpath(abs);
    if (opts.isProtected?.(real)) return false;
    return (await fs.stat(real)).isFile();
  } catch {
    return false;
  }
}
