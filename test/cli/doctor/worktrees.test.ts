// `swarm doctor`'s worktree check (src/cli/doctor/worktrees.ts), in-process through main(argv, io), on a real
// repository in a temp dir: a worktree and a bare branch of members no longer in the team are
// warnings whose fix is the exact plain git; the untouched worktree is removed by --fix, the branch
// with a commit never is; a running member's worktree is no finding; the printed commands work.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { addMember, createTeam, updateMember, updateTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { addWorktree, planWorktree } from '../../../src/teammates/worktree.js';
import { swarmInProcess } from '../../support/cli.js';
import { git, makeRepo } from '../../support/git-repo.js';
import { useTempRoot } from '../../support/tmp-root.js';

const TEAM = 'dw';
let root: string;
let repo: string;

useTempRoot((dir) => (root = dir), 'swarm-doctor-wt-');
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  repo = await makeRepo(path.join(root, 'repo'));
});

interface Finding {
  check: string;
  severity: string;
  problem: string;
  fix: string;
  fixable: boolean;
  fixed?: boolean;
  fixResult?: string;
}

async function orphans(fix = false): Promise<Finding[]> {
  const r = await swarmInProcess(root, ['doctor', '--team', TEAM, '--json', ...(fix ? ['--fix'] : [])]);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings.filter((f) => f.check === 'orphaned_worktree');
}

describe('swarm doctor: worktrees whose member is gone', () => {
  it('reports each with the exact cleanup; --fix removes only the untouched one; the printed command works', async () => {
    const team = new Team(root, TEAM);
    // ghost: a worktree made and never settled (its member was removed by hand).
    const ghost = await planWorktree(TEAM, 'ghost', repo);
    await addWorktree(ghost);
    // messy: the same, with an untracked file in it.
    const messy = await planWorktree(TEAM, 'messy', repo);
    await addWorktree(messy);
    await fs.writeFile(path.join(messy.path, 'notes.txt'), 'unsaved\n');
    // live: a member that is still in the team.
    const live = await planWorktree(TEAM, 'live', repo);
    await addWorktree(live);
    await addMember(team, { name: 'live', cwd: live.cwd });
    await updateMember(team, 'live', { worktreePath: live.path });
    // old: only a branch is left, one commit ahead of the base.
    const base = await git(repo, 'rev-parse', 'HEAD');
    await git(repo, 'checkout', '-q', '-b', `swarm/${TEAM}/old`);
    await fs.writeFile(path.join(repo, 'old.txt'), 'old\n');
    await git(repo, 'add', '-A');
    await git(repo, 'commit', '-q', '-m', 'old work');
    await git(repo, 'checkout', '-q', 'main');
    await updateTeam(team, (c) => {
      c.swarm = { ...c.swarm, worktreeRepos: [repo] };
    });

    const found = await orphans();
    expect(found.map((f) => [f.severity, f.fixable, f.problem])).toEqual([
      ['warning', true, `team ${TEAM}: worktree ${ghost.path} on branch swarm/${TEAM}/ghost belongs to ghost, who is no longer in the team (0 commits ahead)`],
      ['warning', false, `team ${TEAM}: worktree ${messy.path} on branch swarm/${TEAM}/messy belongs to messy, who is no longer in the team (0 commits ahead, uncommitted changes)`],
      ['warning', false, `team ${TEAM}: branch swarm/${TEAM}/old (no worktree) belongs to old, who is no longer in the team (1 commit ahead)`],
    ]);
    expect(found[0]!.fix).toBe(`git -C ${repo} worktree remove --force ${ghost.path} && git -C ${repo} branch -D swarm/${TEAM}/ghost`);
    expect(found[1]!.fix).toBe(
      `review it (git -C ${repo} log ${base.slice(0, 12)}..swarm/${TEAM}/messy), merge what you keep, then git -C ${repo} worktree remove --force ${messy.path} && git -C ${repo} branch -D swarm/${TEAM}/messy`,
    );
    expect(found[2]!.fix).toBe(`review it (git -C ${repo} log ${base.slice(0, 12)}..swarm/${TEAM}/old), merge what you keep, then git -C ${repo} branch -D swarm/${TEAM}/old`);

    const fixed = await orphans(true);
    expect(fixed.map((f) => f.fixed)).toEqual([true, undefined, undefined]);
    expect(fixed[0]!.fixResult).toBe(`removed ${ghost.path} and branch swarm/${TEAM}/ghost (no commits, no changes)`);
    expect(existsSync(ghost.path)).toBe(false);
    expect(existsSync(path.join(messy.path, 'notes.txt'))).toBe(true);
    expect(existsSync(live.path)).toBe(true);
    expect(await git(repo, 'log', '-1', '--format=%s', `swarm/${TEAM}/old`)).toBe('old work'); // never deleted by --fix

    for (const f of found.slice(1)) await execa('sh', ['-c', f.fix.replace(/^review it \(.*\), merge what you keep, then /, '')]);
    expect(await orphans()).toEqual([]);
    expect(await git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/swarm/')).toBe(`swarm/${TEAM}/live`);
  });

  it("a team whose name prefixes another's (dw, dw-x) never claims its worktree, nor offers to remove it", async () => {
    await createTeam(root, { name: `${TEAM}-x` });
    const other = new Team(root, `${TEAM}-x`);
    const theirs = await planWorktree(`${TEAM}-x`, 'a', repo); // .claude/worktrees/dw-x-a, as dw's member x-a would be
    await addWorktree(theirs);
    await addMember(other, { name: 'a', cwd: theirs.cwd });
    await updateMember(other, 'a', { worktreePath: theirs.path });
    for (const t of [new Team(root, TEAM), other]) {
      await updateTeam(t, (c) => {
        c.swarm = { ...c.swarm, worktreeRepos: [repo] };
      });
    }
    const r = await swarmInProcess(root, ['doctor', '--json']);
    const report = JSON.parse(r.stdout) as { findings: Finding[]; passed: string[] };
    expect(report.findings.filter((f) => f.check === 'orphaned_worktree')).toEqual([]);
    expect(report.passed).toContain(`team ${TEAM}-x: every worktree belongs to a member`);
    const listed = await swarmInProcess(root, ['worktrees', '--team', TEAM, '--json']);
    expect(JSON.parse(listed.stdout)).toEqual([]);
    expect(existsSync(theirs.path)).toBe(true);
  });
});
