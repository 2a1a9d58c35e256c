// The git side of worktree isolation (src/teammates/worktree.ts) on real repositories in temp dirs:
// planning (cwd mapped inside the worktree, a repository without a commit or a symlinked .claude
// refused), a failed add that removes only what it made, settling at stop (clean → removed with its
// branch; a commit, an untracked file, a branch moved back to the base), the stop clause, the team
// listing (attributed exactly, never by a shared name prefix), and the parser of
// `git worktree list --porcelain`.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TeamConfig } from '../../src/protocol/config.js';
import type { SwarmError } from '../../src/protocol/errors.js';
import {
  addWorktree,
  describeWorktreeFate,
  dropWorktree,
  parseWorktreeList,
  planWorktree,
  settleWorktree,
  teamWorktrees,
  type WorktreePlan,
} from '../../src/teammates/worktree.js';
import { execaExec, type Exec, type ExecResult } from '../../src/backends/process.js';
import { git, makeRepo } from '../support/git-repo.js';
import { tempRoot } from '../support/tmp-root.js';

/** Real git, except a call whose arguments include every one of `words`: that one gets `answer`. */
const gitExcept =
  (words: readonly string[], answer: ExecResult): Exec =>
  async (file, args, opts) =>
    words.every((w) => args.includes(w)) ? answer : execaExec(file, args, opts);

async function repoWithWorktree(name = 'ann'): Promise<{ repo: string; plan: WorktreePlan }> {
  const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'), { 'README.md': 'x\n', 'pkg/lib/a.ts': 'export {};\n' });
  const plan = await planWorktree('tm', name, path.join(repo, 'pkg', 'lib'));
  await addWorktree(plan);
  return { repo, plan };
}

const config = (repos: string[], members: string[]): TeamConfig => ({
  name: 'tm',
  createdAt: 0,
  leadAgentId: 'team-lead@tm',
  leadSessionId: '',
  members: ['team-lead', ...members].map((name) => ({ agentId: `${name}@tm`, name, joinedAt: 0, tmuxPaneId: '', cwd: '', subscriptions: [] })),
  swarm: { worktreeRepos: repos },
});

describe('worktrees', () => {
  it('plans the worktree, branch and base from HEAD, with the cwd at the same relative place; add makes it and excludes it locally', async () => {
    const { repo, plan } = await repoWithWorktree();
    expect(plan).toEqual({
      repo,
      path: path.join(repo, '.claude', 'worktrees', 'tm-ann'),
      branch: 'swarm/tm/ann',
      base: await git(repo, 'rev-parse', 'HEAD'),
      cwd: path.join(repo, '.claude', 'worktrees', 'tm-ann', 'pkg', 'lib'),
    });
    expect(existsSync(path.join(plan.cwd, 'a.ts'))).toBe(true);
    expect(await git(plan.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('swarm/tm/ann');
    expect(await git(repo, 'config', '--get', 'branch.swarm/tm/ann.swarmBase')).toBe(plan.base);
    expect(await fs.readFile(path.join(repo, '.git', 'info', 'exclude'), 'utf8')).toMatch(/\n\/\.claude\/worktrees\/\n$/);
    expect(await git(repo, 'status', '--porcelain')).toBe('');
    // Planned from the repository root, the cwd is the worktree itself.
    expect((await planWorktree('tm', 'bo', repo)).cwd).toBe(path.join(repo, '.claude', 'worktrees', 'tm-bo'));
  });

  it('a repository without a commit is refused in one line', async () => {
    const dir = path.join(await tempRoot('swarm-git-'), 'empty');
    await fs.mkdir(dir);
    await git(dir, 'init', '-q');
    const real = await fs.realpath(dir); // before the call: its rejection must find the handler already attached
    await expect(planWorktree('tm', 'ann', dir)).rejects.toThrow(`--isolation worktree: the repository ${real} has no commit yet; commit once, then spawn again`);
  });

  it('a failed git worktree add never deletes a branch it did not create: one made since the plan (at the base), or during the add (elsewhere)', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const plan = await planWorktree('tm', 'ann', repo);
    await git(repo, 'branch', 'swarm/tm/ann'); // someone else's, at the very commit the plan starts from
    const refused = await addWorktree(plan).then(() => undefined, (e: unknown) => e);
    expect(await git(repo, 'rev-parse', 'swarm/tm/ann')).toBe(plan.base);
    expect(String(refused)).toContain(`--isolation worktree: branch swarm/tm/ann already exists in ${repo} (an earlier ann's kept work?)`);
    expect(existsSync(plan.path)).toBe(false);

    // Made between the check and `git worktree add` (a racing git process), on another commit.
    const next = await planWorktree('tm', 'bo', repo);
    await git(repo, 'commit', '-q', '--allow-empty', '-m', 'second');
    const racing: Exec = async (file, args, opts) => {
      if (args.includes('worktree') && args.includes('add')) await git(repo, 'branch', 'swarm/tm/bo');
      return execaExec(file, args, opts);
    };
    await expect(addWorktree(next, racing)).rejects.toThrow(/--isolation worktree: git worktree add \S+ failed: .*swarm\/tm\/bo/);
    expect(await git(repo, 'rev-parse', 'swarm/tm/bo')).toBe(await git(repo, 'rev-parse', 'HEAD'));
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('.claude');

    // Nor a worktree: one a racer put at the planned path, on its own branch, stays.
    const third = await planWorktree('tm', 'cy', repo);
    const theirs: Exec = async (file, args, opts) => {
      if (args.includes('worktree') && args.includes('add')) await git(repo, 'worktree', 'add', '-q', '-b', 'mine', third.path);
      return execaExec(file, args, opts);
    };
    await expect(addWorktree(third, theirs)).rejects.toThrow(/git worktree add \S+ failed/);
    expect(await git(third.path, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('mine');
  });

  it('a failed git worktree add removes what it made itself: its worktree and its branch at the base', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const plan = await planWorktree('tm', 'ann', repo);
    // git made both, then failed (as when checking the files out runs out of disk).
    const halfDone: Exec = async (file, args, opts) => {
      if (!(args.includes('worktree') && args.includes('add'))) return execaExec(file, args, opts);
      await execaExec(file, args, opts);
      return { exitCode: 128, stdout: '', stderr: 'fatal: could not write index' };
    };
    await expect(addWorktree(plan, halfDone)).rejects.toThrow(`--isolation worktree: git worktree add ${plan.path} failed: fatal: could not write index`);
    expect(existsSync(plan.path)).toBe(false);
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('.claude');
    // Recording the base failed after the add: the same, the worktree and branch gone.
    const failsLater = gitExcept(['--local'], { exitCode: 1, stdout: '', stderr: 'error: could not lock config file' });
    await expect(addWorktree(plan, failsLater)).rejects.toThrow(/recording the base/);
    expect(existsSync(plan.path)).toBe(false);
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
  });

  it('dropWorktree (a spawn undone) removes the worktree and its branch whatever they hold; the exclude line is written once, after what was there', async () => {
    const { repo, plan } = await repoWithWorktree();
    const exclude = path.join(repo, '.git', 'info', 'exclude');
    expect((await fs.readFile(exclude, 'utf8')).split('\n').filter((l) => l === '/.claude/worktrees/')).toHaveLength(1);
    await fs.writeFile(path.join(plan.path, 'work.txt'), 'unsaved\n');
    await git(plan.path, 'commit', '-q', '--allow-empty', '-m', 'ahead');
    await dropWorktree(plan);
    expect(existsSync(plan.path)).toBe(false);
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
    // Another add: the line is there already, not written again; a file not ending in a newline keeps its last line.
    await fs.writeFile(exclude, '*.log');
    const again = await planWorktree('tm', 'bo', repo);
    await addWorktree(again);
    await addWorktree(await planWorktree('tm', 'cy', repo));
    expect(await fs.readFile(exclude, 'utf8')).toBe('*.log\n/.claude/worktrees/\n');
    expect(await git(repo, 'status', '--porcelain')).toBe('');
  });

  it('settling compares with the base recorded at spawn, not where HEAD went since; without one, with the merge base of HEAD', async () => {
    // The repository's branch moved back behind the base after the spawn: the untouched worktree still goes.
    const moved = await repoWithWorktree('bo');
    await git(moved.repo, 'commit', '-q', '--allow-empty', '-m', 'two');
    const two = await planWorktree('tm', 'cy', moved.repo);
    await addWorktree(two);
    await git(moved.repo, 'reset', '-q', '--hard', moved.plan.base);
    expect((await settleWorktree(two.path, 'tm', 'cy')).fate).toBe('removed');

    const { repo, plan } = await repoWithWorktree();
    await git(repo, 'config', '--unset', 'branch.swarm/tm/ann.swarmBase');
    await git(plan.path, 'commit', '-q', '--allow-empty', '-m', 'one');
    expect(await settleWorktree(plan.path, 'tm', 'ann')).toMatchObject({ fate: 'kept', base: plan.base, ahead: 1, filesChanged: 0, dirty: false });
  });

  it('each other refusal of a plan in one line that says what to do, nothing made; the repository root as cwd is the worktree root', async () => {
    const dir = await tempRoot('swarm-git-');
    const plain = path.join(dir, 'plain');
    await fs.mkdir(plain);
    await expect(planWorktree('tm', 'ann', plain)).rejects.toThrow(
      `--isolation worktree: ${plain} is not inside a git repository; run it from a repository (or git init one and commit), or spawn without --isolation`,
    );
    const noGit: Exec = async () => ({ exitCode: 127, stdout: '', stderr: '' });
    await expect(planWorktree('tm', 'ann', plain, noGit)).rejects.toThrow('git could not be started (not found on PATH)');
    const repo = await makeRepo(path.join(dir, 'repo'));
    const atRoot = await planWorktree('tm', 'ann', repo);
    expect(atRoot.cwd).toBe(atRoot.path);
    await git(repo, 'branch', 'swarm/tm/bo');
    const refused = (await planWorktree('tm', 'bo', repo).catch((e: unknown) => e)) as SwarmError;
    expect([refused.kind, refused.message]).toEqual([
      'exists',
      `--isolation worktree: branch swarm/tm/bo already exists in ${repo} (an earlier bo's kept work?); review and delete it (git -C ${repo} branch -D swarm/tm/bo) or pick another name`,
    ]);
    await fs.mkdir(path.join(repo, '.claude', 'worktrees', 'tm-cy'), { recursive: true });
    const taken = (await planWorktree('tm', 'cy', repo).catch((e: unknown) => e)) as SwarmError;
    expect([taken.kind, taken.message]).toEqual(['exists', `--isolation worktree: ${atRoot.path.replace(/tm-ann$/, 'tm-cy')} already exists; remove it (git -C ${repo} worktree remove ${atRoot.path.replace(/tm-ann$/, 'tm-cy')}) or pick another name`]);
    await fs.rm(path.join(repo, '.claude'), { recursive: true });
    await fs.writeFile(path.join(repo, '.claude'), 'a file\n');
    await expect(planWorktree('tm', 'dee', repo)).rejects.toThrow(`--isolation worktree: ${path.join(repo, '.claude')} is not a directory; move it away, or spawn without --isolation`);
    // A failing git command says which, and git's first line.
    const failing = gitExcept(['--git-common-dir'], { exitCode: 1, stdout: '', stderr: 'fatal: not a git repository\nmore' });
    await expect(addWorktree(atRoot, failing)).rejects.toThrow('finding the git directory: git rev-parse --path-format=absolute --git-common-dir failed: fatal: not a git repository');
  });

  it('a symlinked .claude or .claude/worktrees is refused in one line: the worktree would land outside the repository', async () => {
    const dir = await tempRoot('swarm-git-');
    const repo = await makeRepo(path.join(dir, 'repo'));
    const elsewhere = path.join(dir, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.symlink(elsewhere, path.join(repo, '.claude'));
    await expect(planWorktree('tm', 'ann', repo)).rejects.toThrow(
      `--isolation worktree: ${path.join(repo, '.claude')} is a symlink (to ${elsewhere}), so the worktree would be made outside the repository; make it a real directory (move in what it links to), or spawn without --isolation`,
    );
    await fs.rm(path.join(repo, '.claude'));
    await fs.mkdir(path.join(repo, '.claude'));
    await fs.symlink(elsewhere, path.join(repo, '.claude', 'worktrees'));
    await expect(planWorktree('tm', 'ann', repo)).rejects.toThrow(`${path.join(repo, '.claude', 'worktrees')} is a symlink (to ${elsewhere})`);
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });

  it('settling: an untouched worktree goes with its branch and its recorded base', async () => {
    const { repo, plan } = await repoWithWorktree();
    const fate = await settleWorktree(plan.path, 'tm', 'ann');
    expect(fate).toEqual({ fate: 'removed', path: plan.path, branch: 'swarm/tm/ann' });
    expect(existsSync(plan.path)).toBe(false);
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
    expect(await git(repo, 'config', '--get-regexp', 'swarmbase').catch(() => '')).toBe('');
    expect(describeWorktreeFate(fate)).toBe('worktree removed (no changes), with branch swarm/tm/ann');
  });

  it('settling many at once (a shutdown --all): every clean one goes, with its branch and base', async () => {
    const { repo, plan } = await repoWithWorktree('w0');
    const plans = [plan];
    for (let i = 1; i < 16; i++) {
      const p = await planWorktree('tm', `w${i}`, repo);
      await addWorktree(p);
      plans.push(p);
    }
    const fates = await Promise.all(plans.map((p, i) => settleWorktree(p.path, 'tm', `w${i}`)));
    expect(fates.map((f) => (f.fate === 'kept' ? f.reason : f.fate))).toEqual(plans.map(() => 'removed'));
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
    expect(await git(repo, 'config', '--get-regexp', 'swarmbase').catch(() => '')).toBe('');
  });

  it('settling: a commit keeps it (commits ahead, files changed); once the branch is back at the base and clean it goes', async () => {
    const { repo, plan } = await repoWithWorktree();
    await fs.writeFile(path.join(plan.cwd, 'b.ts'), 'export const b = 1;\n');
    await git(plan.path, 'add', '-A');
    await git(plan.path, 'commit', '-q', '-m', 'b');
    const kept = await settleWorktree(plan.path, 'tm', 'ann');
    expect(kept).toEqual({ fate: 'kept', path: plan.path, branch: 'swarm/tm/ann', repo, base: plan.base, ahead: 1, filesChanged: 1, dirty: false });
    expect(describeWorktreeFate(kept)).toBe(
      `worktree kept: ${plan.path} on branch swarm/tm/ann (1 commit ahead, 1 file changed); review: git -C ${repo} log ${plan.base.slice(0, 12)}..swarm/tm/ann`,
    );
    expect(existsSync(path.join(plan.cwd, 'b.ts'))).toBe(true);
    await git(plan.path, 'reset', '-q', '--hard', plan.base);
    expect((await settleWorktree(plan.path, 'tm', 'ann')).fate).toBe('removed');
  });

  it('settling: an untracked file alone keeps it, as dirty', async () => {
    const { plan } = await repoWithWorktree();
    await fs.writeFile(path.join(plan.path, 'scratch.txt'), 'x\n');
    expect(await settleWorktree(plan.path, 'tm', 'ann')).toMatchObject({ fate: 'kept', ahead: 0, filesChanged: 1, dirty: true });
    expect(existsSync(path.join(plan.path, 'scratch.txt'))).toBe(true);
  });

  it('settling what a person changed by hand: its branch deleted, its directory deleted, a git that fails to remove it', async () => {
    const { repo, plan } = await repoWithWorktree();
    // Its directory gone, its branch untouched: pruned, the branch deleted.
    await fs.rm(plan.path, { recursive: true, force: true });
    expect(await settleWorktree(plan.path, 'tm', 'ann')).toEqual({ fate: 'removed', path: plan.path, branch: 'swarm/tm/ann' });
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');

    // Its directory gone, with a commit on its branch: kept, and why.
    const bo = await planWorktree('tm', 'bo', repo);
    await addWorktree(bo);
    await git(bo.path, 'commit', '-q', '--allow-empty', '-m', 'work');
    await fs.rm(bo.path, { recursive: true, force: true });
    const gone = await settleWorktree(bo.path, 'tm', 'bo');
    expect(gone).toEqual({ fate: 'kept', path: bo.path, branch: 'swarm/tm/bo', repo, base: bo.base, ahead: 1, dirty: false, filesChanged: undefined, reason: 'its directory is gone' });
    expect(describeWorktreeFate(gone)).toBe(`worktree kept: ${bo.path} on branch swarm/tm/bo (1 commit ahead, its directory is gone); review: git -C ${repo} log ${bo.base.slice(0, 12)}..swarm/tm/bo`);

    // Its branch deleted (the worktree detached first; git drops the recorded base with it): kept, and why.
    const cy = await planWorktree('tm', 'cy', repo);
    await addWorktree(cy);
    await git(cy.path, 'checkout', '-q', '--detach');
    await git(repo, 'branch', '-D', 'swarm/tm/cy');
    expect(await settleWorktree(cy.path, 'tm', 'cy')).toEqual({ fate: 'kept', path: cy.path, branch: 'swarm/tm/cy', repo, base: undefined, ahead: undefined, filesChanged: undefined, dirty: undefined, reason: 'its branch swarm/tm/cy is gone' });

    // Clean, but git cannot remove it: kept, with git's first line.
    const dee = await planWorktree('tm', 'dee', repo);
    await addWorktree(dee);
    const refusing = gitExcept(['remove'], { exitCode: 128, stdout: '', stderr: 'fatal: is locked\nhint' });
    expect(await settleWorktree(dee.path, 'tm', 'dee', refusing)).toMatchObject({ fate: 'kept', reason: `removing the clean worktree: git worktree remove ${dee.path} failed: fatal: is locked` });
    expect(existsSync(dee.path)).toBe(true);
  });

  it('the stop clause counts in the plural and names uncommitted changes', () => {
    const f = { fate: 'kept' as const, path: '/r/w', branch: 'swarm/tm/a', repo: '/r', base: undefined, ahead: 2, filesChanged: 3, dirty: true };
    expect(describeWorktreeFate(f)).toBe('worktree kept: /r/w on branch swarm/tm/a (2 commits ahead, 3 files changed, uncommitted changes); review: git -C /r log swarm/tm/a');
  });

  it("teamWorktrees: the team's worktrees in its remembered repositories, active while the member is in the team, a bare branch too", async () => {
    const { repo, plan } = await repoWithWorktree();
    await git(repo, 'branch', 'swarm/tm/old');
    await git(repo, 'branch', 'swarm/other/ann'); // another team's
    const rows = await teamWorktrees(config([repo, path.join(repo, 'gone')], ['ann']));
    expect(rows).toEqual([
      { member: 'ann', repo, path: plan.path, branch: 'swarm/tm/ann', base: plan.base, ahead: 0, dirty: false, prunable: false, active: true },
      { member: 'old', repo, path: undefined, branch: 'swarm/tm/old', base: plan.base, ahead: 0, dirty: undefined, prunable: false, active: false },
    ]);
    expect((await teamWorktrees(config([repo], []))).map((w) => w.active)).toEqual([false, false]);
  });

  it('teamWorktrees attributes exactly: team t never claims team t-x\'s worktree, by branch, recorded path or a name that reads one way only', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const teamOf = (name: string, members: { name: string; worktreePath?: string }[]): TeamConfig => ({
      name,
      createdAt: 0,
      leadAgentId: `team-lead@${name}`,
      leadSessionId: '',
      members: [{ name: 'team-lead' }, ...members].map((m) => ({ agentId: `${m.name}@${name}`, joinedAt: 0, tmuxPaneId: '', cwd: '', subscriptions: [], ...m })),
      swarm: { worktreeRepos: [repo] },
    });
    const txa = await planWorktree('t-x', 'a', repo); // dir t-x-a: also the name team t's member x-a would get
    await addWorktree(txa);
    const tb = await planWorktree('t', 'b', repo); // dir t-b: one reading only
    await addWorktree(tb);
    const rows = async (c: TeamConfig) => (await teamWorktrees(c)).map((w) => [w.member, w.path, w.branch, w.active]);
    const t = teamOf('t', [{ name: 'b' }]);
    const tx = teamOf('t-x', [{ name: 'a', worktreePath: txa.path }]);
    expect(await rows(t)).toEqual([['b', tb.path, 'swarm/t/b', true]]);
    expect(await rows(tx)).toEqual([['a', txa.path, 'swarm/t-x/a', true]]);

    // Detached (no branch checked out): the existing branch swarm/t-x/a says whose t-x-a is; t-b reads one way.
    await git(txa.path, 'checkout', '-q', '--detach');
    await git(tb.path, 'checkout', '-q', '--detach');
    expect(await rows(t)).toEqual([['b', tb.path, 'swarm/t/b', true]]);
    expect(await rows(teamOf('t-x', []))).toEqual([['a', txa.path, 'swarm/t-x/a', false]]);
    // Their branches gone too: t-x-a reads two ways, so only the team whose config records the path
    // claims it; t-b still reads one way.
    await git(repo, 'branch', '-D', 'swarm/t-x/a', 'swarm/t/b');
    await git(repo, 'worktree', 'add', '-q', '--detach', path.join(path.dirname(repo), 't-c')); // not where swarm puts them: nobody's
    expect(await rows(t)).toEqual([['b', tb.path, 'swarm/t/b', true]]);
    expect(await rows(teamOf('t-x', []))).toEqual([]);
    expect(await rows(tx)).toEqual([['a', txa.path, 'swarm/t-x/a', true]]);
  });

  it('teamWorktrees: a worktree moved out of .claude/worktrees is still found by its branch; a name with two branched readings is nobody\'s', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const cfg = (name: string, members: string[]): TeamConfig => ({ ...config([repo], members), name });
    const ann = await planWorktree('t', 'ann', repo);
    await addWorktree(ann);
    const moved = path.join(path.dirname(repo), 'ann-moved');
    await git(repo, 'worktree', 'move', ann.path, moved);
    const rows = async (c: TeamConfig) => (await teamWorktrees(c)).map((w) => [w.member, w.path, w.branch]);
    expect(await rows(cfg('t', ['ann']))).toEqual([['ann', moved, 'swarm/t/ann']]);

    // Detached in .claude/worktrees/t-x-a, with both swarm/t/x-a and swarm/t-x/a present: neither team claims it.
    const txa = await planWorktree('t-x', 'a', repo);
    await addWorktree(txa);
    await git(txa.path, 'checkout', '-q', '--detach');
    await git(repo, 'branch', 'swarm/t/x-a');
    expect(await rows(cfg('t', ['ann']))).toEqual([
      ['ann', moved, 'swarm/t/ann'],
      ['x-a', undefined, 'swarm/t/x-a'],
    ]);
    expect(await rows(cfg('t-x', []))).toEqual([['a', undefined, 'swarm/t-x/a']]);
  });

  it('teamWorktrees: with no git to run, nothing is listed and nothing is thrown', async () => {
    const noGit: Exec = async () => ({ exitCode: 127, stdout: '', stderr: '' });
    expect(await teamWorktrees(config(['/nowhere/repo'], ['ann']), noGit)).toEqual([]);
  });

  it("a plan on git's odd answers: an empty top level or HEAD, a branch name git refuses, git that cannot start with its own words", async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const refusal = async (exec: Exec): Promise<string> => {
      const e = (await planWorktree('tm', 'ann', repo, exec).catch((err: unknown) => err)) as SwarmError;
      return `${e.kind}: ${e.message}`;
    };
    expect(await refusal(gitExcept(['--show-toplevel'], { exitCode: 0, stdout: '\n', stderr: '' }))).toBe(
      `invalid_input: --isolation worktree: ${repo} is not inside a git repository; run it from a repository (or git init one and commit), or spawn without --isolation`,
    );
    expect(await refusal(gitExcept(['HEAD^{commit}'], { exitCode: 0, stdout: '', stderr: '' }))).toBe(
      `invalid_input: --isolation worktree: the repository ${repo} has no commit yet; commit once, then spawn again`,
    );
    expect(await refusal(gitExcept(['check-ref-format'], { exitCode: 1, stdout: '', stderr: '' }))).toBe(
      'invalid_input: --isolation worktree: "swarm/tm/ann" is not a valid git branch name; pick another member name',
    );
    expect(await refusal(async () => ({ exitCode: 127, stdout: '', stderr: '  /usr/bin/git: bad interpreter \n' }))).toBe(
      'backend: git could not be started (/usr/bin/git: bad interpreter); install git',
    );
  });

  it("a failed git worktree add says git's first line, trimmed, or that git said nothing", async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const failingAdd = (stderr: string): Exec => gitExcept(['worktree', 'add'], { exitCode: 128, stdout: '', stderr });
    const plan = await planWorktree('tm', 'ann', repo);
    await expect(addWorktree(plan, failingAdd('  fatal: cannot lock ref \nmore\n'))).rejects.toThrow(`--isolation worktree: git worktree add ${plan.path} failed: fatal: cannot lock ref`);
    await expect(addWorktree(plan, failingAdd(''))).rejects.toThrow(`--isolation worktree: git worktree add ${plan.path} failed: no message`);
  });

  it('a cwd git does not track (nested) is made in the worktree; an exclude file that is not there is made', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    await fs.mkdir(path.join(repo, 'new', 'deep'), { recursive: true }); // untracked: not in a checkout of HEAD
    await fs.rm(path.join(repo, '.git', 'info', 'exclude'));
    const plan = await planWorktree('tm', 'ann', path.join(repo, 'new', 'deep'));
    await addWorktree(plan);
    expect((await fs.stat(plan.cwd)).isDirectory()).toBe(true);
    expect(await fs.readFile(path.join(repo, '.git', 'info', 'exclude'), 'utf8')).toBe('/.claude/worktrees/\n');
  });

  it('dropWorktree removes its worktree with another thing checked out, and after its directory was deleted, its branch', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const ann = await planWorktree('tm', 'ann', repo);
    await addWorktree(ann);
    await git(ann.path, 'checkout', '-q', '--detach');
    await dropWorktree(ann);
    expect(existsSync(ann.path)).toBe(false);
    const bo = await planWorktree('tm', 'bo', repo);
    await addWorktree(bo);
    await fs.rm(bo.path, { recursive: true, force: true });
    await dropWorktree(bo);
    expect(await git(repo, 'for-each-ref', 'refs/heads/swarm/')).toBe('');
  });

  it('a git step that fails without a word says so; the team listing reads members\' worktrees without any remembered repository', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const plan = await planWorktree('tm', 'ann', repo);
    const silent = gitExcept(['--local'], { exitCode: 1, stdout: '', stderr: '' });
    await expect(addWorktree(plan, silent)).rejects.toThrow(`recording the base: git config --local branch.swarm/tm/ann.swarmBase ${plan.base} failed: no message`);
    await addWorktree(plan);
    const { swarm: _none, ...bare } = config([], []);
    const withMember: TeamConfig = { ...bare, members: [...bare.members, { agentId: 'ann@tm', name: 'ann', joinedAt: 0, tmuxPaneId: '', cwd: '', subscriptions: [], worktreePath: plan.path }] };
    expect((await teamWorktrees(withMember)).map((w) => [w.member, w.path])).toEqual([['ann', plan.path]]);
  });

  it('the exclude line goes on a line of its own after an exclude file without a last newline', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-git-'), 'repo'));
    const exclude = path.join(repo, '.git', 'info', 'exclude');
    await fs.writeFile(exclude, '*.log');
    await addWorktree(await planWorktree('tm', 'ann', repo));
    expect(await fs.readFile(exclude, 'utf8')).toBe('*.log\n/.claude/worktrees/\n');
    await fs.writeFile(exclude, '# mine\n*.log\n');
    await addWorktree(await planWorktree('tm', 'bo', repo));
    expect(await fs.readFile(exclude, 'utf8')).toBe('# mine\n*.log\n/.claude/worktrees/\n');
  });

  it('parses git worktree list --porcelain', () => {
    const text = ['worktree /r', 'HEAD abc', 'branch refs/heads/main', '', 'worktree /r/.claude/worktrees/t-a', 'HEAD def', 'branch refs/heads/swarm/t/a', 'prunable gitdir file points to non-existent location', '', 'worktree /d', 'HEAD 123', 'detached', ''].join('\n');
    expect(parseWorktreeList(text)).toEqual([
      { path: '/r', head: 'abc', branch: 'refs/heads/main', prunable: false },
      { path: '/r/.claude/worktrees/t-a', head: 'def', branch: 'refs/heads/swarm/t/a', prunable: true },
      { path: '/d', head: '123', prunable: false },
    ]);
  });
});
