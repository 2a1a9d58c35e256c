// Listing the files under a directory for Glob and Grep, on tinyglobby (fdir underneath). It lists
// every regular file; the callers filter names with protocol/glob.ts, so one glob reading decides
// what matches. Symlinks are never followed and never listed, so a link cannot lead a search into
// the team's directories or round a loop. Directories the caller refuses (`.git`, `node_modules`,
// hidden ones, the protected ones) are never entered, and after `maxEntries` directory entries
// every further directory reads as empty, so a walk of `/` cannot run away and still returns what
// it found. Both go through tinyglobby's `fs` option: its ignore globs see a directory without its
// trailing `/`, so `**/.*/**` never prunes `.venv`, and `**/.*` would drop `.env` files too.
import { readdir, type Dirent } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';

export interface WalkOptions {
  /** Do not enter this directory (absolute path, base name)? */
  skipDir?: (abs: string, name: string) => boolean;
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
  /** Sorted by relative path. */
  files: WalkedFile[];
  /** True when the walk stopped at maxEntries. */
  capped: boolean;
}

type ReaddirCallback = (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void;

export async function walkFiles(root: string, opts: WalkOptions = {}): Promise<WalkResult> {
  const max = opts.maxEntries ?? MAX_WALK_ENTRIES;
  let seen = 0;
  let capped = false;
  // fdir reads every directory through this (with file types): skipped directories are left out,
  // and past the cap every directory reads as empty.
  const guardedReaddir = (dir: string, options: { withFileTypes: true }, done: ReaddirCallback): void => {
    readdir(dir, options, (error, entries) => {
      if (error) return done(error, []); // unreadable or vanished: fdir skips it, like rg does
      const kept = entries.filter((e) => !(e.isDirectory() && opts.skipDir?.(path.join(dir, e.name), e.name)));
      const room = Math.max(0, max - seen);
      seen += kept.length;
      if (kept.length > room) capped = true;
      done(null, kept.length > room ? kept.slice(0, room) : kept);
    });
  };
  const rels = await glob('**', {
    cwd: root,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    fs: { readdir: guardedReaddir as unknown as typeof readdir },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  opts.signal?.throwIfAborted(); // tinyglobby resolves with what it has; a cancelled search must not look empty
  rels.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files: rels.map((rel) => ({ abs: path.join(root, rel), rel })), capped };
}
