// Git worktree isolation per teammate (docs/protocol.md#agent-types-and-worktrees): every git call swarm makes lives here, run through
// an injectable `Exec` (execa, argv arrays, never a shell string).
//
//   planWorktree    at spawn, before anything is written: the repository containing the cwd, its
//                   HEAD commit (the base), `<repo>/.claude/worktrees/<team>-<name>` and the branch
//                   `swarm/<team>/<name>` (neither may exist yet), and the teammate's cwd: the same
//                   relative directory inside the worktree. Outside a repository, or with a
//                   symlinked `.claude` (the worktree would land outside it): a one-line error.
//   addWorktree     `git worktree add -b <branch> <path> <base>`, the branch and the path checked
//                   free again first (a failed add removes only what it made); the base is kept in
//                   the repo's config as `branch.<branch>.swarmBase` (git drops it with the branch),
//                   and `/.claude/worktrees/` is added to `.git/info/exclude` so the main
//                   checkout's `git status` stays clean.
//   dropWorktree    undo of a failed spawn: worktree and branch removed, whatever they hold.
//   settleWorktree  at stop (the teammate verified gone): clean (no changes, HEAD still the base) →
//                   worktree and branch removed; otherwise kept, with commits ahead and files
//                   changed. Never throws: a git failure keeps the worktree and says why.
//   teamWorktrees   the worktrees (and leftover branches) of a team, in the repositories its config
//                   remembers (`swarm.worktreeRepos`) and those of its members' worktrees, each
//                   marked active or not (its member still in the team): `swarm worktrees`, doctor.
//                   Attributed exactly: by branch `swarm/<team>/<name>`, else by a path config.json
//                   records, else by a directory name that reads one way only — never by the
//                   prefix `<team>-`, which team `t-x`'s worktrees share with team `t`'s.
// add, drop and settle change the repository under the lock `<git dir>/swarm-worktrees.lock`: git's
// own config and ref locks fail at once instead of waiting, so two teammates stopping together
// would otherwise break each other's `git branch -D`.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import type { TeamConfig } from '../protocol/config.js';
import { SwarmError } from '../protocol/errors.js';
import { sameName } from '../protocol/names.js';
import { withFileLock } from '../storage/lock.js';
import { execaExec, type Exec } from '../backends/process.js';

/** Where a teammate's worktree goes, and the cwd it gets inside it. */
export interface WorktreePlan {
  repo: string;
  path: string;
  branch: string;
  /** The commit the branch starts from (HEAD of `repo` at spawn). */
  base: string;
  /** The teammate's cwd: the spawn's cwd, relative to `repo`, inside the worktree. */
  cwd: string;
}

/** What stopping a worktree teammate did with its worktree. */
export type WorktreeFate =
  | { fate: 'removed'; path: string; branch: string }
  | {
      fate: 'kept';
      path: string;
      branch: string;
      repo: string;
      base: string | undefined;
      ahead: number | undefined;
      filesChanged: number | undefined;
      dirty: boolean | undefined;
      /** Why it was kept although it may be clean (a git failure). */
      reason?: string;
    };

/** One worktree (or a branch whose worktree is gone) of a team, as `swarm worktrees` shows it. */
export interface WorktreeInfo {
  member: string;
  repo: string;
  /** Undefined for a leftover branch without a worktree. */
  path: string | undefined;
  branch: string;
  base: string | undefined;
  ahead: number | undefined;
  dirty: boolean | undefined;
  /** Git lists it but its directory is gone (`git worktree prune` forgets it). */
  prunable: boolean;
  /** Its member is still in the team (else: kept work of a teammate that stopped, or an orphan). */
  active: boolean;
}

export const WORKTREES_DIR = path.join('.claude', 'worktrees');
const EXCLUDE_LINE = '/.claude/worktrees/';

export function worktreeBranch(team: string, name: string): string {
  return `swarm/${team}/${name}`;
}

/** `<repo>/.claude/worktrees/<team>-<name>`. */
export function worktreeDir(repo: string, team: string, name: string): string {
  return path.join(repo, WORKTREES_DIR, `${team}-${name}`);
}

/** The repository a worktree made by swarm belongs to (it lives at `<repo>/.claude/worktrees/<dir>`). */
export function repoOfWorktree(worktreePath: string): string {
  return path.resolve(worktreePath, '..', '..', '..');
}

const baseKey = (branch: string): string => `branch.${branch}.swarmBase`;

async function git(exec: Exec, cwd: string, args: readonly string[]): Promise<{ ok: boolean; out: string; err: string }> {
  const r = await exec('git', ['-C', cwd, ...args]);
  if (r.exitCode === 127) throw new SwarmError('backend', `git could not be started (${r.stderr.trim() || 'not found on PATH'}); install git`);
  return { ok: r.exitCode === 0, out: r.stdout.trim(), err: r.stderr.trim().split('\n')[0] ?? '' };
}

async function gitOrThrow(exec: Exec, cwd: string, args: readonly string[], what: string): Promise<string> {
  const r = await git(exec, cwd, args);
  if (!r.ok) throw new SwarmError('backend', `${what}: git ${args.join(' ')} failed: ${r.err || 'no message'}`);
  return r.out;
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

/** Check that a worktree can be made for `name` from `cwd`; writes nothing. Throws a one-line SwarmError. */
export async function planWorktree(team: string, name: string, cwd: string, exec: Exec = execaExec): Promise<WorktreePlan> {
  const top = await git(exec, cwd, ['rev-parse', '--show-toplevel']);
  if (!top.ok || top.out === '') {
    throw new SwarmError('invalid_input', `--isolation worktree: ${cwd} is not inside a git repository; run it from a repository (or git init one and commit), or spawn without --isolation`);
  }
  const repo = top.out;
  const base = await git(exec, repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!base.ok || base.out === '') {
    throw new SwarmError('invalid_input', `--isolation worktree: the repository ${repo} has no commit yet; commit once, then spawn again`);
  }
  const branch = worktreeBranch(team, name);
  if (!(await git(exec, repo, ['check-ref-format', '--branch', branch])).ok) {
    throw new SwarmError('invalid_input', `--isolation worktree: "${branch}" is not a valid git branch name; pick another member name`);
  }
  const dir = worktreeDir(repo, team, name);
  await assertWorktreeFree(exec, { repo, path: dir, branch }, name);
  const rel = path.relative(repo, await fs.realpath(cwd));
  return { repo, path: dir, branch, base: base.out, cwd: rel === '' ? dir : path.join(dir, rel) };
}

/**
 * Where the worktree goes must be free, and inside the repository: no branch `branch`, no
 * directory `path`, and `<repo>/.claude` and `<repo>/.claude/worktrees` real directories where
 * they exist (through a symlink git would make the worktree outside the repository). `name` (the
 * member) is for the message. Throws a one-line SwarmError that says what to do.
 */
async function assertWorktreeFree(exec: Exec, plan: Pick<WorktreePlan, 'repo' | 'path' | 'branch'>, name: string): Promise<void> {
  const { repo, branch } = plan;
  for (const dir of [path.join(repo, '.claude'), path.join(repo, WORKTREES_DIR)]) {
    const st = await fs.lstat(dir).catch(() => undefined);
    if (st === undefined) break;
    if (st.isSymbolicLink()) {
      const target = await fs.readlink(dir).catch(() => '?');
      throw new SwarmError(
        'invalid_input',
        `--isolation worktree: ${dir} is a symlink (to ${target}), so the worktree would be made outside the repository; make it a real directory (move in what it links to), or spawn without --isolation`,
      );
    }
    if (!st.isDirectory()) throw new SwarmError('invalid_input', `--isolation worktree: ${dir} is not a directory; move it away, or spawn without --isolation`);
  }
  if ((await git(exec, repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).ok) {
    throw new SwarmError(
      'exists',
      `--isolation worktree: branch ${branch} already exists in ${repo} (an earlier ${name}'s kept work?); review and delete it (${quote(['git', '-C', repo, 'branch', '-D', branch])}) or pick another name`,
    );
  }
  if (await exists(plan.path)) {
    throw new SwarmError('exists', `--isolation worktree: ${plan.path} already exists; remove it (${quote(['git', '-C', repo, 'worktree', 'remove', plan.path])}) or pick another name`);
  }
}

/** The `git worktree add` that addWorktree runs (also shown by `swarm launch --dry-run`). */
export function worktreeAddArgv(plan: WorktreePlan): string[] {
  return ['git', '-C', plan.repo, 'worktree', 'add', '--quiet', '-b', plan.branch, '--', plan.path, plan.base];
}

/** `fn(gitDir)` under the repository's swarm lock (see the header). */
async function withRepoLock<R>(exec: Exec, repo: string, fn: (gitDir: string) => Promise<R>): Promise<R> {
  const gitDir = await gitOrThrow(exec, repo, ['rev-parse', '--path-format=absolute', '--git-common-dir'], 'finding the git directory');
  return withFileLock(path.join(gitDir, 'swarm-worktrees'), () => fn(gitDir));
}

/** Create the planned worktree; on failure nothing of it is left and a one-line SwarmError is thrown. */
export async function addWorktree(plan: WorktreePlan, exec: Exec = execaExec): Promise<void> {
  await withRepoLock(exec, plan.repo, async (gitDir) => {
    // Again, under the repository's lock: since the plan another team or a person may have made them.
    await assertWorktreeFree(exec, plan, plan.branch.slice(plan.branch.lastIndexOf('/') + 1));
    const [, , , ...args] = worktreeAddArgv(plan);
    const r = await git(exec, plan.repo, args);
    if (!r.ok) {
      // Only what this call made: the branch (absent just above) while still at the base, its worktree.
      await dropUnlocked(plan, exec, plan.base).catch(() => undefined);
      throw new SwarmError('backend', `--isolation worktree: git worktree add ${plan.path} failed: ${r.err || 'no message'}`);
    }
    try {
      await gitOrThrow(exec, plan.repo, ['config', '--local', baseKey(plan.branch), plan.base], 'recording the base');
      await excludeWorktrees(gitDir);
      if (!(await exists(plan.cwd))) await fs.mkdir(plan.cwd, { recursive: true }); // an untracked cwd
    } catch (e) {
      await dropUnlocked(plan, exec).catch(() => undefined);
      throw e;
    }
  });
}

/** `/.claude/worktrees/` in the repository's local exclude file (never a tracked .gitignore). */
async function excludeWorktrees(gitDir: string): Promise<void> {
  const file = path.join(gitDir, 'info', 'exclude');
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  if (text.split('\n').includes(EXCLUDE_LINE)) return;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${EXCLUDE_LINE}\n`);
}

/** Remove a worktree and its branch whatever they hold (undo of a spawn that made them). */
export async function dropWorktree(plan: Pick<WorktreePlan, 'repo' | 'path' | 'branch'>, exec: Exec = execaExec): Promise<void> {
  await withRepoLock(exec, plan.repo, () => dropUnlocked(plan, exec));
}

/**
 * dropWorktree's work, the lock held. With `onlyAt` (undoing a failed add), only what that add can
 * have made: the worktree at `path` while it is on `branch`, the branch while it points at `onlyAt`.
 */
async function dropUnlocked(plan: Pick<WorktreePlan, 'repo' | 'path' | 'branch'>, exec: Exec, onlyAt?: string): Promise<void> {
  const listed = await git(exec, plan.repo, ['worktree', 'list', '--porcelain']);
  const ours = (w: { path: string; branch?: string }): boolean => w.path === plan.path && (onlyAt === undefined || w.branch === `refs/heads/${plan.branch}`);
  if (listed.ok && parseWorktreeList(listed.out).some(ours)) {
    await gitOrThrow(exec, plan.repo, ['worktree', 'remove', '--force', '--force', plan.path], 'removing the worktree');
  }
  await git(exec, plan.repo, ['worktree', 'prune']);
  const head = await git(exec, plan.repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${plan.branch}`]);
  if (head.ok && (onlyAt === undefined || head.out === onlyAt)) {
    await gitOrThrow(exec, plan.repo, ['branch', '-D', plan.branch], 'deleting the branch');
  }
}

/** The base recorded at spawn, else the merge base with the repository's HEAD. */
async function baseOf(exec: Exec, repo: string, branch: string): Promise<string | undefined> {
  const recorded = await git(exec, repo, ['config', '--get', baseKey(branch)]);
  if (recorded.ok && recorded.out !== '') return recorded.out;
  const mb = await git(exec, repo, ['merge-base', 'HEAD', branch]);
  return mb.ok && mb.out !== '' ? mb.out : undefined;
}

/** Commits on `branch` not in `base`. */
async function aheadOf(exec: Exec, repo: string, base: string | undefined, branch: string): Promise<number | undefined> {
  if (base === undefined) return undefined;
  const r = await git(exec, repo, ['rev-list', '--count', `${base}..refs/heads/${branch}`]);
  return r.ok ? Number(r.out) : undefined;
}

/** Uncommitted changes or untracked files in the worktree (ignored files do not count). */
async function dirtyOf(exec: Exec, worktree: string): Promise<boolean | undefined> {
  const r = await git(exec, worktree, ['status', '--porcelain']);
  return r.ok ? r.out !== '' : undefined;
}

/** Files that differ from `base`: committed, staged, unstaged or untracked. */
async function filesChangedOf(exec: Exec, worktree: string, base: string | undefined): Promise<number | undefined> {
  if (base === undefined) return undefined;
  const diff = await git(exec, worktree, ['diff', '--name-only', base]);
  const untracked = await git(exec, worktree, ['ls-files', '--others', '--exclude-standard']);
  if (!diff.ok || !untracked.ok) return undefined;
  return new Set([...diff.out.split('\n'), ...untracked.out.split('\n')].filter((l) => l !== '')).size;
}

/**
 * At stop, once the teammate is verified gone: remove a clean worktree with its branch, or keep a
 * changed one and say how it differs. `team`/`name` give the branch; never throws.
 */
export async function settleWorktree(worktreePath: string, team: string, name: string, exec: Exec = execaExec): Promise<WorktreeFate> {
  const repo = repoOfWorktree(worktreePath);
  const branch = worktreeBranch(team, name);
  const kept = { fate: 'kept' as const, path: worktreePath, branch, repo, base: undefined, ahead: undefined, filesChanged: undefined, dirty: undefined };
  try {
    return await withRepoLock(exec, repo, async (): Promise<WorktreeFate> => {
      const base = await baseOf(exec, repo, branch);
      const head = await git(exec, repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
      if (!head.ok) return { ...kept, base, reason: `its branch ${branch} is gone` };
      const present = await exists(worktreePath);
      const dirty = present ? await dirtyOf(exec, worktreePath) : false;
      const ahead = await aheadOf(exec, repo, base, branch);
      if (base !== undefined && head.out === base && dirty === false) {
        if (present) await gitOrThrow(exec, repo, ['worktree', 'remove', worktreePath], 'removing the clean worktree');
        await git(exec, repo, ['worktree', 'prune']);
        await gitOrThrow(exec, repo, ['branch', '-D', branch], 'deleting its branch');
        return { fate: 'removed', path: worktreePath, branch };
      }
      const filesChanged = present ? await filesChangedOf(exec, worktreePath, base) : undefined;
      return { ...kept, base, ahead, dirty, filesChanged, ...(present ? {} : { reason: 'its directory is gone' }) };
    });
  } catch (e) {
    return { ...kept, reason: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** One clause for a stop report: what happened to the teammate's worktree. */
export function describeWorktreeFate(f: WorktreeFate): string {
  if (f.fate === 'removed') return `worktree removed (no changes), with branch ${f.branch}`;
  const facts = [
    f.ahead === undefined ? undefined : `${plural(f.ahead, 'commit')} ahead`,
    f.filesChanged === undefined ? undefined : `${plural(f.filesChanged, 'file')} changed`,
    f.dirty === true ? 'uncommitted changes' : undefined,
    f.reason,
  ].filter((x) => x !== undefined);
  const range = f.base === undefined ? f.branch : `${f.base.slice(0, 12)}..${f.branch}`;
  return `worktree kept: ${f.path} on branch ${f.branch} (${facts.join(', ')}); review: ${quote(['git', '-C', f.repo, 'log', range])}`;
}

/** `git worktree list --porcelain` as records (pure). */
export function parseWorktreeList(text: string): { path: string; head?: string; branch?: string; prunable: boolean }[] {
  return text
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').filter((l) => l !== ''))
    .filter((lines) => lines[0]?.startsWith('worktree ') === true)
    .map((lines) => {
      const field = (key: string): string | undefined => lines.find((l) => l === key || l.startsWith(`${key} `))?.slice(key.length + 1);
      const branch = field('branch');
      const head = field('HEAD');
      return { path: field('worktree')!, ...(head ? { head } : {}), ...(branch ? { branch } : {}), prunable: lines.some((l) => l.startsWith('prunable')) };
    });
}

/**
 * The team and member a worktree directory name `<team>-<member>` stands for, if only one reading
 * fits: `t-x-a` is team `t`'s `x-a` or team `t-x`'s `a`, and only a `swarm/<team>/<member>` branch
 * that exists for exactly one of them settles it (`swarmRefs`: every `refs/heads/swarm/...`).
 */
function ownerByDirName(dir: string, swarmRefs: ReadonlySet<string>): { team: string; member: string } | undefined {
  const readings = [...dir.matchAll(/-/g)].map((m) => ({ team: dir.slice(0, m.index), member: dir.slice(m.index + 1) })).filter((r) => r.team !== '' && r.member !== '');
  if (readings.length === 1) return readings[0];
  const branched = readings.filter((r) => swarmRefs.has(`refs/heads/${worktreeBranch(r.team, r.member)}`));
  return branched.length === 1 ? branched[0] : undefined;
}

/**
 * The member of `team` a listed worktree belongs to, exactly, or undefined: its branch
 * `swarm/<team>/<member>`; else (detached, or another branch checked out in it) a path config.json
 * records for a member (`recorded`), else a directory `<repo>/.claude/worktrees/<team>-<member>`
 * whose name reads one way only (ownerByDirName). An ambiguous one is never claimed.
 */
function worktreeOwner(
  w: { path: string; branch?: string },
  o: { repo: string; team: string; recorded: ReadonlyMap<string, string>; swarmRefs: ReadonlySet<string> },
): string | undefined {
  const ours = `refs/heads/${worktreeBranch(o.team, '')}`;
  if (w.branch?.startsWith(ours) === true) return w.branch.slice(ours.length);
  const member = o.recorded.get(w.path);
  if (member !== undefined) return member;
  if (path.dirname(w.path) !== path.join(o.repo, WORKTREES_DIR)) return undefined;
  const owner = ownerByDirName(path.basename(w.path), o.swarmRefs);
  return owner?.team === o.team ? owner.member : undefined;
}

/**
 * The worktrees of `team` in each repository (worktreeOwner: by branch, else by exact path), and
 * leftover `swarm/<team>/*` branches without a worktree. A repository that is gone or not a
 * repository is skipped. `recorded`: worktree path → member, from config.json.
 */
async function listWorktrees(repos: readonly string[], team: string, recorded: ReadonlyMap<string, string>, exec: Exec): Promise<Omit<WorktreeInfo, 'active'>[]> {
  const prefix = `refs/heads/${worktreeBranch(team, '')}`;
  const out: Omit<WorktreeInfo, 'active'>[] = [];
  for (const repo of [...new Set(repos)].sort()) {
    const list = await git(exec, repo, ['worktree', 'list', '--porcelain']).catch(() => undefined);
    if (list === undefined || !list.ok) continue;
    const refs = await git(exec, repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/swarm/']);
    const swarmRefs = new Set(refs.ok ? refs.out.split('\n').filter((l) => l !== '') : []);
    const seen = new Set<string>();
    for (const w of parseWorktreeList(list.out)) {
      const member = worktreeOwner(w, { repo, team, recorded, swarmRefs });
      if (member === undefined) continue;
      // Its swarm branch, also when another one is checked out in it (never offered for deletion).
      const branch = worktreeBranch(team, member);
      seen.add(`refs/heads/${branch}`);
      const base = await baseOf(exec, repo, branch);
      out.push({
        member,
        repo,
        path: w.path,
        branch,
        base,
        ahead: await aheadOf(exec, repo, base, branch),
        dirty: w.prunable ? undefined : await dirtyOf(exec, w.path),
        prunable: w.prunable,
      });
    }
    for (const ref of [...swarmRefs].filter((b) => b.startsWith(prefix) && !seen.has(b))) {
      const branch = ref.replace(/^refs\/heads\//, '');
      const base = await baseOf(exec, repo, branch);
      out.push({ member: ref.slice(prefix.length), repo, path: undefined, branch, base, ahead: await aheadOf(exec, repo, base, branch), dirty: undefined, prunable: false });
    }
  }
  return out;
}

/** The team's worktrees and leftover branches (see listWorktrees), each marked active or not. */
export async function teamWorktrees(config: TeamConfig, exec: Exec = execaExec): Promise<WorktreeInfo[]> {
  const repos = [
    ...(config.swarm?.worktreeRepos ?? []),
    ...config.members.flatMap((m) => (m.worktreePath ? [repoOfWorktree(m.worktreePath)] : [])),
  ];
  const recorded = new Map(config.members.flatMap((m) => (m.worktreePath ? [[m.worktreePath, m.name] as const] : [])));
  const found = await listWorktrees(repos, config.name, recorded, exec);
  return found.map((w) => ({ ...w, active: config.members.some((m) => sameName(m.name, w.member)) }));
}
