// `swarm launch` checks the whole team file before it creates anything (in-process through
// main(argv, io), tmux on a private socket per test, reaped afterwards): a member whose cwd is missing, or a
// runtime: claude member without claude on PATH, or an isolation: worktree member outside a git
// repository, is a one-line error naming the file, line, field
// and member, exit 2, with no teams/<name>/ directory and no tmux session left; a backend that
// cannot be had after the team was created removes the team again.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { findOnPath } from '../../../src/teammates/command-line.js';
import { swarmInProcess } from '../../support/cli.js';
import { useFakeTeammates, writeTeamFile } from '../../support/fake-team.js';

let root: string;
let socket: string;
let env: Record<string, string>;

useFakeTeammates((t) => ({ root, socket, env } = t), 'swarm-launch-check-');
const teamFile = (lines: string[]): Promise<string> => writeTeamFile(root, lines);

async function expectNothingMade(team: string): Promise<void> {
  expect(existsSync(path.join(root, 'teams', team)), `teams/${team}/ left behind`).toBe(false);
  expect(await listAllPanes(new TmuxServer({ socket })), 'a tmux session left behind').toEqual([]);
}

describe('swarm launch validates every member before creating anything', () => {
  it('a member whose cwd does not exist: one line naming file, line, field and member; exit 2; nothing made', async () => {
    const file = await teamFile(['name: lv', 'members:', '  - name: w1', '    prompt: hi', '  - name: w2', '    prompt: hi', '    cwd: ./missing']);
    for (const extra of [[], ['--dry-run']]) {
      const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'tmux', ...extra], env);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toBe(`swarm: ${file}:7: members[1].cwd: member "w2": ${path.join(root, 'missing')} is not a directory; create it or fix the path`);
      expect(r.stdout).toBe('');
      await expectNothingMade('lv');
    }
  });

  it('a runtime: claude member without claude on PATH is refused the same way', async () => {
    const file = await teamFile(['name: lc', 'members:', '  - name: c1', '    prompt: hi', '    runtime: claude']);
    // A PATH with tmux and nothing else (a machine may well have claude beside node).
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    await fs.symlink(findOnPath('tmux', process.env)!, path.join(bin, 'tmux'));
    const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'tmux'], { ...env, PATH: bin });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toBe(`swarm: ${file}:5: members[0].runtime: member "c1": runtime claude needs the claude CLI (Claude Code) on PATH; install it or use runtime: swarm`);
    await expectNothingMade('lc');
  });

  it('an isolation: worktree member outside a git repository is refused the same way, dry run too', async () => {
    const file = await teamFile(['name: lw', 'members:', '  - name: w1', '    prompt: hi', '    isolation: worktree', `    cwd: ${root}`]);
    for (const extra of [[], ['--dry-run']]) {
      const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'tmux', ...extra], env);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `swarm: ${file}:5: members[0].isolation: member "w1": --isolation worktree: ${root} is not inside a git repository; run it from a repository (or git init one and commit), or spawn without --isolation`,
      );
      await expectNothingMade('lw');
    }
  });

  it('in-process teammates without a console: no host to run them in, and the dry run says the same', async () => {
    const file = await teamFile(['name: li', 'members:', '  - name: w1', '    prompt: hi']);
    for (const extra of [['--dry-run'], []]) {
      const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'in-process', ...extra], env);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr).toBe('swarm: no in-process host is running for team "li": start the leader console first (swarm lead --team li), or use --backend tmux');
      await expectNothingMade('li');
    }
  });

  it('a backend that cannot be had once the team exists: the team is removed again', async () => {
    const file = await teamFile(['name: lb', 'members:', '  - name: w1', '    prompt: hi']);
    // No it2 on this PATH: --backend iterm2 fails after createTeam.
    const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'iterm2'], { ...env, PATH: path.join(root, 'no-bin') });
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^swarm: --backend iterm2: it2 is not installed/);
    await expectNothingMade('lb');
    expect(existsSync(path.join(root, 'swarm', 'keys', 'lb.key'))).toBe(false);
  });
});
