// Claude Code's project key (team/project-key.ts) on real directories and real git repositories: the
// real path of the cwd, its git root (a linked worktree's main repository), the sanitised name with
// Claude Code's cut and hash past 200 characters. The expected keys below were computed with the
// functions copied out of Claude Code 2.1.112's cli.js; test/team/memory-claude-code.test.ts checks
// the directory against the real Claude Code builds.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryDir } from '../../src/team/paths.js';
import { pathKey, projectBase, projectKey } from '../../src/team/project-key.js';
import { git, makeRepo } from '../support/git-repo.js';
import { tempRoot } from '../support/tmp-root.js';

describe('pathKey: Claude Code sanitising', () => {
  it('every character but [a-zA-Z0-9] becomes "-"', () => {
    expect(pathKey('/home/dev/My Project (v2)/ünïcode.x')).toBe('-home-dev-My-Project--v2---n-code-x');
  });

  it('past 200 characters: cut, then "-" and the hash of the whole path in base 36', () => {
    const long = `/home/dev/${'very-long-directory-name/'.repeat(9)}project`;
    expect(pathKey(long)).toBe(
      '-home-dev-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-directory-name-very-long-direc-pxi1p2',
    );
    expect(pathKey(long.slice(0, 200))).toHaveLength(200); // at 200 no hash yet
  });
});

describe('projectBase: the directory the key is made of', () => {
  it('outside git: the real path of the cwd (a symlinked cwd is followed)', async () => {
    const dir = await fs.realpath(await tempRoot('swarm-pk-'));
    await fs.mkdir(path.join(dir, 'proj'));
    await fs.symlink(path.join(dir, 'proj'), path.join(dir, 'link'));
    expect(projectBase(path.join(dir, 'link'))).toBe(path.join(dir, 'proj'));
    expect(projectKey(path.join(dir, 'link'))).toBe(pathKey(path.join(dir, 'proj')));
  });

  it('inside a git repository: its root, from any subdirectory', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-pk-'), 'repo'));
    await fs.mkdir(path.join(repo, 'src', 'deep'), { recursive: true });
    expect(projectBase(path.join(repo, 'src', 'deep'))).toBe(repo);
    expect(memoryDir('/r', path.join(repo, 'src'))).toBe(path.join('/r', 'projects', pathKey(repo), 'memory', 'team'));
  });

  it("in a linked worktree (swarm's --isolation worktree): the main repository's root", async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-pk-'), 'repo'));
    const wt = path.join(repo, '.claude', 'worktrees', 't-w1');
    await git(repo, 'worktree', 'add', '-q', '-b', 'swarm/t/w1', wt);
    expect(projectBase(path.join(wt))).toBe(repo);
    const outside = path.join(path.dirname(repo), 'elsewhere');
    await git(repo, 'worktree', 'add', '-q', '-b', 'other', outside);
    expect(projectBase(outside)).toBe(repo);
  });

  it('a worktree of a bare repository: the bare repository itself', async () => {
    const dir = await fs.realpath(await tempRoot('swarm-pk-'));
    const repo = await makeRepo(path.join(dir, 'repo'));
    await git(dir, 'clone', '-q', '--bare', repo, path.join(dir, 'bare.git'));
    await git(path.join(dir, 'bare.git'), 'worktree', 'add', '-q', path.join(dir, 'wt'), 'main');
    expect(projectBase(path.join(dir, 'wt'))).toBe(path.join(dir, 'bare.git'));
  });

  describe('a .git file that is no linked worktree: that directory itself (Claude Code checks each link back)', () => {
    /** `<dir>/repo` with a linked worktree `<dir>/wt`, and its git dir for the worktree. */
    async function linked(): Promise<{ dir: string; wt: string; gitDir: string }> {
      const dir = await fs.realpath(await tempRoot('swarm-pk-'));
      const repo = await makeRepo(path.join(dir, 'repo'));
      await git(repo, 'worktree', 'add', '-q', '-b', 'w', path.join(dir, 'wt'));
      return { dir, wt: path.join(dir, 'wt'), gitDir: path.join(repo, '.git', 'worktrees', 'wt') };
    }

    it('not a gitdir: line (even one naming the right git dir after another 7-character word)', async () => {
      const { wt, gitDir } = await linked();
      await fs.writeFile(path.join(wt, '.git'), `bogus: ${gitDir}\n`);
      expect(projectBase(wt)).toBe(wt);
    });

    it('a git dir with no commondir (a submodule)', async () => {
      const dir = await fs.realpath(await tempRoot('swarm-pk-'));
      await fs.mkdir(path.join(dir, 'sub'));
      await fs.writeFile(path.join(dir, 'sub', '.git'), 'gitdir: ../.git/modules/sub\n');
      expect(projectBase(path.join(dir, 'sub'))).toBe(path.join(dir, 'sub'));
    });

    it('a git dir that is not under <common>/worktrees', async () => {
      const { dir, wt, gitDir } = await linked();
      const moved = path.join(dir, 'elsewhere-gitdir');
      await fs.rename(gitDir, moved);
      await fs.writeFile(path.join(wt, '.git'), `gitdir: ${moved}\n`);
      await fs.writeFile(path.join(moved, 'commondir'), `${path.join(dir, 'repo', '.git')}\n`);
      expect(projectBase(wt)).toBe(wt);
    });

    it("a git dir whose gitdir file points at another checkout (a copied worktree)", async () => {
      const { dir, wt } = await linked();
      const copy = path.join(dir, 'copy');
      await fs.cp(wt, copy, { recursive: true });
      expect(projectBase(copy)).toBe(copy);
      expect(projectBase(wt)).toBe(path.join(dir, 'repo'));
    });
  });

  it('a directory that does not exist yet (a dry run): its path, its git root still found above it', async () => {
    const repo = await makeRepo(path.join(await tempRoot('swarm-pk-'), 'repo'));
    expect(projectBase(path.join(repo, '.claude', 'worktrees', 'planned'))).toBe(repo);
  });
});
