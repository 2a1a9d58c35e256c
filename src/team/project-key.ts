// Claude Code's name for a project's directory under `<root>/projects/` (docs/memory.md#the-project-key), so that a
// Claude Code session in a repository and a swarm team working in it share `projects/<key>/memory/`.
// Claude Code 2.1.112 (cli.js) and 2.1.332 (native) compute it the same way:
//   1. the project: the real path of the cwd (realpathSync, NFC);
//   2. its git root: the nearest directory, from the project up, holding a `.git` directory or file;
//      in a linked worktree (`.git` is a file `gitdir: <repo>/.git/worktrees/<name>` whose `commondir`
//      and `gitdir` point back at it) the main repository's root instead (a bare repository: its
//      git dir). No git root: the project itself;
//   3. the key: every character but [a-zA-Z0-9] replaced by `-`; a key longer than 200 characters is
//      cut to 200 and given `-` and a 32-bit hash of the whole path (base 36).
// Claude Code's overrides of the memory directory (autoMemoryDirectory in settings,
// CLAUDE_COWORK_MEMORY_PATH_OVERRIDE, CLAUDE_CODE_REMOTE_MEMORY_DIR, CLAUDE_CODE_PROJECT_DIR_NAME)
// are not followed. Synchronous and read-only, like Claude Code's own: a few stat and read calls.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Claude Code keeps keys this long; a longer one is cut and given a hash. */
const MAX_KEY = 200;

/** Claude Code's 32-bit string hash (Java's `hashCode`, over UTF-16 code units). */
function hash32(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/** A path as a directory name: Claude Code's sanitising of a project path. */
export function pathKey(p: string): string {
  const key = p.replace(/[^a-zA-Z0-9]/g, '-');
  return key.length <= MAX_KEY ? key : `${key.slice(0, MAX_KEY)}-${Math.abs(hash32(p)).toString(36)}`;
}

function realOrAsIs(p: string): string {
  try {
    return realpathSync(p).normalize('NFC');
  } catch {
    return p.normalize('NFC');
  }
}

function hasGit(dir: string): boolean {
  try {
    const st = statSync(path.join(dir, '.git'));
    return st.isDirectory() || st.isFile();
  } catch {
    return false;
  }
}

/** The nearest directory from `dir` up that holds `.git`, or undefined. */
function gitRoot(dir: string): string | undefined {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (hasGit(d)) return d.normalize('NFC');
    if (path.dirname(d) === d) return undefined;
  }
}

function readTrimmed(file: string): string {
  return readFileSync(file, 'utf8').trim();
}

/** For a linked worktree's root, the main repository's root (Claude Code's checks, in its order); else `root`. */
function mainRepoRoot(root: string): string {
  try {
    const dotGit = readTrimmed(path.join(root, '.git'));
    if (!dotGit.startsWith('gitdir:')) return root;
    const gitDir = path.resolve(root, dotGit.slice('gitdir:'.length).trim());
    const common = path.resolve(gitDir, readTrimmed(path.join(gitDir, 'commondir')));
    if (path.resolve(path.dirname(gitDir)) !== path.join(common, 'worktrees')) return root;
    if (realpathSync(readTrimmed(path.join(gitDir, 'gitdir'))) !== path.join(realpathSync(root), '.git')) return root;
    return (path.basename(common) === '.git' ? path.dirname(common) : common).normalize('NFC');
  } catch {
    return root; // a `.git` directory, or a worktree whose files do not check out
  }
}

/** The directory a project's key is made from: its git root (a worktree's main repository), else itself. */
export function projectBase(cwd: string): string {
  const project = realOrAsIs(path.resolve(cwd));
  const root = gitRoot(project);
  return root === undefined ? project : mainRepoRoot(root);
}

/**
 * The directory name Claude Code keeps the sessions started in `cwd` under, in `<root>/projects/`:
 * the key of the cwd itself (its real path), not of its git root as the memory's is (2.1.112 and
 * 2.1.332 alike, checked in a subdirectory of a repository).
 */
export function sessionsKey(cwd: string): string {
  return pathKey(realOrAsIs(path.resolve(cwd)));
}

/** The name of `cwd`'s project directory under `<root>/projects/`, as Claude Code names it. */
export function projectKey(cwd: string): string {
  return pathKey(projectBase(cwd));
}
