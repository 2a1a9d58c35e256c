// Worktree isolation end to end (SPEC §10): `swarm spawn --isolation worktree` (the built CLI)
// in a real git repository (temp dir), real `swarm teammate` processes in a private tmux server
// (reaped afterwards) answered by the stand-in Messages API, then `swarm worktrees --json`, the stop
// report (a changed worktree kept, a clean one removed with its branch), `swarm doctor` on the kept
// one and its printed cleanup run as printed, and the README's review-and-merge commands, as printed. The failures (outside a repository, `git worktree add`
// blocked by a held ref lock, a clashing branch, a teammate that dies at once, a symlinked .claude) use the fake teammate.
// Every command line but the first test's spawns runs in-process through main(argv, io).
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { createTeam, readTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { REPO, SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { git, makeRepo } from '../../support/git-repo.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));
const TEAM = 'wt';

let root: string;
let repo: string;
let socket: string;
let standin: MessagesServer | undefined;
const pids = new Set<number>();

useTempRoot((dir) => (root = dir), 'swarm-wt-');
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  repo = await makeRepo(path.join(root, 'repo'), { 'README.md': 'main checkout\n', 'sub/keep.txt': 'kept\n' });
  socket = tmuxForThisTest(pids);
});
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

const run = (args: string[], env: Record<string, string>) => swarmInProcess(root, ['--team', TEAM, ...args], env);
/** `run` through the built executable: the real end-to-end spawn. */
const runChild = (args: string[], env: Record<string, string>) => swarm(root, ['--team', TEAM, ...args], env);
const swarmBranches = () => git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/swarm/');
const members = async () => (await readTeam(new Team(root, TEAM))).members.map((m) => m.name);

interface Row {
  member: string;
  repo: string;
  path: string;
  branch: string;
  base: string;
  ahead: number;
  dirty: boolean;
  active: boolean;
}

describe('swarm spawn --isolation worktree', () => {
  it('a teammate writes only inside its worktree; worktrees --json; at stop the changed one is kept and reported, the clean one removed with its branch; doctor offers the cleanup', async () => {
    standin = await startMessagesServer({
      script: {
        shutdown: 'approve',
        turns: [
          { match: { agent: 'alice' }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'notes.txt', content: 'written by alice\n' } }] } },
          { match: { agent: 'alice', toolResult: 'Write' }, reply: 'Wrote notes.txt.' },
          { match: { agent: 'bob' }, reply: 'Nothing to change.' },
        ],
      },
    });
    const env = {
      ...tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']),
      ANTHROPIC_BASE_URL: standin.url,
      ANTHROPIC_API_KEY: 'sk-test',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
    };
    const base = await git(repo, 'rev-parse', 'HEAD');
    for (const name of ['alice', 'bob']) {
      const r = await runChild(['spawn', name, '-p', 'work on sub', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', path.join(repo, 'sub'), '--permission-mode', 'acceptEdits', '--json'], env);
      expect(r.exitCode, r.stderr).toBe(0);
      pids.add((JSON.parse(r.stdout) as { pid: number }).pid);
    }
    const aliceTree = path.join(repo, '.claude', 'worktrees', `${TEAM}-alice`);
    const bobTree = path.join(repo, '.claude', 'worktrees', `${TEAM}-bob`);
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members[1]).toMatchObject({ name: 'alice', worktreePath: aliceTree, cwd: path.join(aliceTree, 'sub') });
    expect(config.swarm?.worktreeRepos).toEqual([repo]);

    // alice's relative Write lands in her worktree's sub/, never in the main checkout.
    await waitFor(() => existsSync(path.join(aliceTree, 'sub', 'notes.txt')), 20_000, "alice's notes.txt in her worktree");
    expect(await fs.readFile(path.join(aliceTree, 'sub', 'notes.txt'), 'utf8')).toBe('written by alice\n');
    expect(existsSync(path.join(repo, 'sub', 'notes.txt'))).toBe(false);
    expect(await git(repo, 'status', '--porcelain')).toBe(''); // .claude/worktrees/ is in .git/info/exclude
    expect(await git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');

    const listed = await run(['worktrees', '--json'], env);
    expect(listed.exitCode, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout) as Row[];
    expect(rows.map((w) => [w.member, w.path, w.branch, w.base, w.ahead, w.dirty, w.active])).toEqual([
      ['alice', aliceTree, `swarm/${TEAM}/alice`, base, 0, true, true],
      ['bob', bobTree, `swarm/${TEAM}/bob`, base, 0, false, true],
    ]);

    const stopped = await run(['shutdown', '--all', '--json'], env);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    const outcomes = JSON.parse(stopped.stdout) as { name: string; outcome: string; worktree?: Record<string, unknown> }[];
    expect(outcomes.find((o) => o.name === 'alice')).toMatchObject({
      outcome: 'approved',
      worktree: { fate: 'kept', path: aliceTree, branch: `swarm/${TEAM}/alice`, repo, base, ahead: 0, filesChanged: 1, dirty: true },
    });
    expect(outcomes.find((o) => o.name === 'bob')).toMatchObject({ outcome: 'approved', worktree: { fate: 'removed', branch: `swarm/${TEAM}/bob` } });
    expect(await members()).toEqual(['team-lead']);
    expect(existsSync(bobTree)).toBe(false);
    expect(await swarmBranches()).toBe(`swarm/${TEAM}/alice`);
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain(bobTree);
    expect(existsSync(path.join(aliceTree, 'sub', 'notes.txt'))).toBe(true);

    // Kept work is still listed, as no longer a member's; doctor offers the exact cleanup.
    const after = JSON.parse((await run(['worktrees', '--json'], env)).stdout) as Row[];
    expect(after.map((w) => [w.member, w.dirty, w.active])).toEqual([['alice', true, false]]);
    const human = await run(['worktrees'], env);
    expect(human.stdout).toBe(`alice  ${aliceTree}  swarm/${TEAM}/alice  base ${base.slice(0, 12)}  0 ahead  dirty  member gone: kept for review`);
    const doctor = await run(['doctor', '--json'], env);
    const found = (JSON.parse(doctor.stdout) as { findings: { check: string; severity: string; problem: string; fix: string; fixable: boolean }[] }).findings.filter(
      (f) => f.check === 'orphaned_worktree',
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning', fixable: false });
    expect(found[0]!.problem).toBe(`team ${TEAM}: worktree ${aliceTree} on branch swarm/${TEAM}/alice belongs to alice, who is no longer in the team (0 commits ahead, uncommitted changes)`);
    const cleanup = `git -C ${repo} worktree remove --force ${aliceTree} && git -C ${repo} branch -D swarm/${TEAM}/alice`;
    expect(found[0]!.fix).toBe(`review it (git -C ${repo} log ${base.slice(0, 12)}..swarm/${TEAM}/alice), merge what you keep, then ${cleanup}`);
    await execa('sh', ['-c', cleanup]);
    expect(existsSync(aliceTree)).toBe(false);
    expect(await swarmBranches()).toBe('');
    const again = JSON.parse((await run(['doctor', '--json'], env)).stdout) as { findings: { check: string }[] };
    expect(again.findings.filter((f) => f.check === 'orphaned_worktree')).toEqual([]);
  }, 90_000);

  it('kill reports a kept worktree with its commits in one line', async () => {
    const env = { ...tmuxEnv(socket, [process.execPath, FAKE]) };
    const r = await run(['spawn', 'carol', '-p', 'hi', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', repo, '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    pids.add((JSON.parse(r.stdout) as { pid: number }).pid);
    const tree = path.join(repo, '.claude', 'worktrees', `${TEAM}-carol`);
    await fs.writeFile(path.join(tree, 'a.txt'), 'a\n');
    await fs.writeFile(path.join(tree, 'README.md'), 'changed\n');
    await git(tree, 'add', '-A');
    await git(tree, 'commit', '-q', '-m', 'carol was here');
    const base = await git(repo, 'rev-parse', 'HEAD');
    const killed = await run(['kill', 'carol'], env);
    expect(killed.exitCode, killed.stderr).toBe(0);
    expect(killed.stdout).toBe(
      `carol: killed; pane and process gone, removed from the team; worktree kept: ${tree} on branch swarm/${TEAM}/carol (1 commit ahead, 2 files changed); review: git -C ${repo} log ${base.slice(0, 12)}..swarm/${TEAM}/carol`,
    );
    expect(await git(repo, 'log', '--format=%s', `${base}..swarm/${TEAM}/carol`)).toBe('carol was here');
  });

  it("the README's review-and-merge commands work as printed on a kept branch", async () => {
    const readme = await fs.readFile(path.join(REPO, 'docs/worktrees.md'), 'utf8');
    const block = /To review and merge a kept branch[^]*?```sh\n([^]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    await createTeam(root, { name: 'review' });
    const env = { ...tmuxEnv(socket, [process.execPath, FAKE]) };
    const r = await swarmInProcess(root, ['spawn', 'alice', '-p', 'hi', '--team', 'review', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', repo, '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    pids.add((JSON.parse(r.stdout) as { pid: number }).pid);
    const tree = path.join(repo, '.claude', 'worktrees', 'review-alice');
    await fs.writeFile(path.join(tree, 'feature.txt'), 'committed\n');
    await git(tree, 'add', '-A');
    await git(tree, 'commit', '-q', '-m', 'alice: feature');
    await fs.writeFile(path.join(tree, 'later.txt'), 'left uncommitted\n');
    const stopped = await swarmInProcess(root, ['kill', 'alice', '--team', 'review', '--json'], env);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ worktree: { fate: 'kept', ahead: 1, filesChanged: 2, dirty: true } });

    for (const line of block!.split('\n').filter((l) => l.trim() !== '')) {
      const done = await execa('sh', ['-c', line], { cwd: repo, reject: false, stdin: 'ignore' });
      expect(done.exitCode, `${line}\n${done.stderr}`).toBe(0);
    }
    expect((await fs.readFile(path.join(repo, 'later.txt'), 'utf8'))).toBe('left uncommitted\n');
    expect(await git(repo, 'log', '--format=%s', '-2')).toBe('alice: uncommitted work\nalice: feature');
    expect(existsSync(tree)).toBe(false);
    expect(await swarmBranches()).toBe('');
  });

  it('a team file member with isolation: worktree: the dry run shows the git command and makes nothing; launch makes it', async () => {
    const env = { ...tmuxEnv(socket, [process.execPath, FAKE]) };
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(file, ['name: tf', 'members:', '  - name: w1', '    prompt: hi', '    isolation: worktree', `    cwd: ${path.join(repo, 'sub')}`, ''].join('\n'));
    const tree = path.join(repo, '.claude', 'worktrees', 'tf-w1');
    const base = await git(repo, 'rev-parse', 'HEAD');
    const dry = await swarmInProcess(root, ['launch', file, '--dry-run', '--no-console', '--backend', 'tmux'], env);
    expect(dry.exitCode, dry.stderr).toBe(0);
    const lines = dry.stdout.split('\n');
    const at = lines.indexOf(`# w1 works in its own git worktree on branch swarm/tf/w1, from ${base.slice(0, 12)}`);
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(`git -C ${repo} worktree add --quiet -b swarm/tf/w1 -- ${tree} ${base}`);
    expect(dry.stdout).toContain(`-c ${path.join(tree, 'sub')} `); // the pane starts inside the worktree
    expect(existsSync(tree)).toBe(false);

    const launched = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'tmux', '--json'], env);
    expect(launched.exitCode, launched.stderr).toBe(0);
    const member = (await readTeam(new Team(root, 'tf'))).members[1]!;
    if (member.pid !== undefined) pids.add(member.pid);
    expect(member).toMatchObject({ name: 'w1', worktreePath: tree, cwd: path.join(tree, 'sub') });
    const stopped = await swarmInProcess(root, ['shutdown', '--all', '--team', 'tf', '--json'], env);
    expect(JSON.parse(stopped.stdout)).toMatchObject([{ name: 'w1', outcome: 'approved', worktree: { fate: 'removed' } }]);
    expect(existsSync(tree)).toBe(false);
  });

  it('outside a repository, with git worktree add blocked, on a branch clash, or when the teammate dies at once: exit non-zero, no member, no worktree, no branch', async () => {
    const env = { ...tmuxEnv(socket, [process.execPath, FAKE]) };
    const spawn = (name: string, cwd: string) => run(['spawn', name, '-p', 'hi', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', cwd], env);
    const plain = path.join(root, 'plain');
    await fs.mkdir(plain);

    const outside = await spawn('dan', plain);
    expect(outside.exitCode).not.toBe(0);
    expect(outside.stderr).toBe(
      `swarm: spawn of dan failed: --isolation worktree: ${plain} is not inside a git repository; run it from a repository (or git init one and commit), or spawn without --isolation`,
    );

    // Another git process holds the branch's ref lock: `git worktree add -b` fails.
    const refs = path.join(repo, '.git', 'refs', 'heads', 'swarm', TEAM);
    await fs.mkdir(refs, { recursive: true });
    await fs.writeFile(path.join(refs, 'erin.lock'), '');
    const locked = await spawn('erin', repo);
    expect(locked.exitCode).not.toBe(0);
    expect(locked.stderr.split('\n')).toHaveLength(1);
    expect(locked.stderr).toMatch(new RegExp(`^swarm: spawn of erin failed: --isolation worktree: git worktree add \\S+wt-erin failed: fatal: .*swarm/${TEAM}/erin`));

    await git(repo, 'branch', `swarm/${TEAM}/fay`);
    const clash = await spawn('fay', repo);
    expect(clash.exitCode).not.toBe(0);
    expect(clash.stderr).toBe(
      `swarm: spawn of fay failed: --isolation worktree: branch swarm/${TEAM}/fay already exists in ${repo} (an earlier fay's kept work?); review and delete it (git -C ${repo} branch -D swarm/${TEAM}/fay) or pick another name`,
    );

    // The worktree is made, then the teammate dies at once: the failed spawn removes both.
    const crashy = await run(['spawn', 'gus', '-p', 'hi', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', repo], {
      ...env,
      SWARM_TEAMMATE_COMMAND: quote(['env', 'FAKE_CRASH=1', process.execPath, FAKE]),
    });
    expect(crashy.exitCode).toBe(1);
    expect(crashy.stderr.split('\n')[0]).toMatch(/^swarm: spawn of gus failed: gus exited before it was ready/);
    expect(existsSync(path.join(repo, '.claude', 'worktrees', `${TEAM}-gus`))).toBe(false);

    expect(await members()).toEqual(['team-lead']);
    expect(existsSync(path.join(repo, '.claude', 'worktrees'))).toBe(true); // git made the parent for gus; it stays, empty
    expect(await fs.readdir(path.join(repo, '.claude', 'worktrees'))).toEqual([]);
    expect(existsSync(path.join(plain, '.claude'))).toBe(false);
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('.claude');
    expect(await swarmBranches()).toBe(`swarm/${TEAM}/fay`); // the clashing branch is the user's: untouched
  });

  it('a symlinked .claude is refused in one line that says what to do, and nothing is created: no member, no inbox, no branch, nothing where it links', async () => {
    const env = { ...tmuxEnv(socket, [process.execPath, FAKE]) };
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    await fs.symlink(elsewhere, path.join(repo, '.claude'));
    const r = await run(['spawn', 'ivy', '-p', 'hi', '--backend', 'tmux', '--isolation', 'worktree', '--cwd', repo], env);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `swarm: spawn of ivy failed: --isolation worktree: ${path.join(repo, '.claude')} is a symlink (to ${elsewhere}), so the worktree would be made outside the repository; make it a real directory (move in what it links to), or spawn without --isolation`,
    );
    expect(await members()).toEqual(['team-lead']);
    expect(existsSync(path.join(root, 'teams', TEAM, 'inboxes', 'ivy.json'))).toBe(false);
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect(await swarmBranches()).toBe('');
    expect(await git(repo, 'worktree', 'list', '--porcelain')).not.toContain('.claude');
  });
});
