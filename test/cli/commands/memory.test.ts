// `swarm memory` in-process (swarmInProcess) on a real root and a real git repository: the topics of a
// project (by --cwd, by --team's cwd, by the current directory), one topic, --json, and one-line
// errors for a name that is not a plain topic, a missing topic, a symlinked one, and bad flags.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { memoryDir } from '../../../src/team/paths.js';
import { projectBase } from '../../../src/team/project-key.js';
import { createTeam, updateTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { swarmInProcess } from '../../support/cli.js';
import { makeRepo } from '../../support/git-repo.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
let repo = '';
let dir = '';
useTempRoot((r) => (root = r), 'swarm-memcli-');
beforeEach(async () => {
  repo = await makeRepo(path.join(root, 'repo'));
  await fs.mkdir(path.join(repo, 'pkg'));
  dir = memoryDir(root, repo);
});

async function save(): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'MEMORY.md'), '- [Build](build.md) — npm run build before the tests\n');
  await fs.writeFile(path.join(dir, 'build.md'), 'Run npm run build before the tests.\n');
  await fs.writeFile(path.join(dir, 'orphan.md'), 'no index line yet\n');
}

describe('swarm memory: listing', () => {
  it('nothing saved yet: says so, exit 0', async () => {
    const r = await swarmInProcess(root, ['memory', '--cwd', repo]);
    expect(r).toMatchObject({ exitCode: 0, stderr: '' });
    expect(r.stdout).toBe(`team memory of ${repo}: ${dir}\nnothing saved yet: teammates save memories there as they work (docs/memory.md)`);
  });

  it("the index and every topic with its size and index line; a subdirectory's --cwd lists the repository's", async () => {
    await save();
    const r = await swarmInProcess(root, ['memory', '--cwd', path.join(repo, 'pkg')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `team memory of ${repo}: ${dir}`,
      'MEMORY.md        1 line',
      'build.md   36 B  - [Build](build.md) — npm run build before the tests',
      'orphan.md  18 B  (not in MEMORY.md)',
    ]);
  });

  it('an entry that is no memory file is named on stderr and left alone', async () => {
    await save();
    await fs.symlink('/etc/hostname', path.join(dir, 'evil.md'));
    const r = await swarmInProcess(root, ['memory', '--cwd', repo]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe(`swarm: not a memory file: ${path.join(dir, 'evil.md')} is a symbolic link: a team memory is a plain <name>.md file directly in ${dir} (write the topic file, then its line in MEMORY.md)`);
    expect(r.stdout).not.toContain('evil');
    expect((await fs.lstat(path.join(dir, 'evil.md'))).isSymbolicLink()).toBe(true);
  });

  it("--team: the team's project (its lead's cwd), wherever the command runs", async () => {
    await save();
    await createTeam(root, { name: 'sq', cwd: path.join(repo, 'pkg') });
    const r = await swarmInProcess(root, ['memory', '--team', 'sq', '--json']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      project: repo,
      dir,
      exists: true,
      index: { state: 'read', lines: 1, chars: 52, cut: false },
      topics: [
        { name: 'build.md', bytes: 36, indexLine: '- [Build](build.md) — npm run build before the tests' },
        { name: 'orphan.md', bytes: 18 },
      ],
      skipped: [],
    });
  });

  it('without --cwd: the current directory', async () => {
    const r = await swarmInProcess(root, ['memory']);
    expect(r.stdout.split('\n')[0]).toBe(`team memory of ${projectBase(process.cwd())}: ${memoryDir(root, process.cwd())}`);
  });
});

describe('swarm memory <topic>', () => {
  beforeEach(save);

  it('prints a topic by its name with or without .md, and the index as MEMORY; --json', async () => {
    expect(await swarmInProcess(root, ['memory', 'build', '--cwd', repo])).toMatchObject({ exitCode: 0, stdout: 'Run npm run build before the tests.' });
    expect((await swarmInProcess(root, ['memory', 'build.md', '--cwd', repo])).stdout).toBe('Run npm run build before the tests.');
    expect((await swarmInProcess(root, ['memory', 'MEMORY', '--cwd', repo])).stdout).toBe('- [Build](build.md) — npm run build before the tests');
    const json = await swarmInProcess(root, ['memory', 'build', '--cwd', repo, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ project: repo, dir, name: 'build.md', text: 'Run npm run build before the tests.\n' });
  });

  it('refuses, in one line, a name that climbs out, an absolute path, a subdirectory, a symlink; a missing topic is not found', async () => {
    await fs.writeFile(path.join(root, 'secret.md'), 'TOKEN');
    await fs.symlink(path.join(root, 'secret.md'), path.join(dir, 'evil.md'));
    const climbs = await swarmInProcess(root, ['memory', '../../../../secret', '--cwd', repo]);
    expect(climbs).toMatchObject({ exitCode: 2, stdout: '', stderr: 'swarm: topic "../../../../secret" climbs out with "..": name one as swarm memory lists it (build or build.md)' });
    expect(await swarmInProcess(root, ['memory', path.join(root, 'secret.md'), '--cwd', repo])).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('is an absolute path') });
    expect(await swarmInProcess(root, ['memory', 'sub/x', '--cwd', repo])).toMatchObject({ exitCode: 2, stderr: expect.stringContaining('is in a subdirectory') });
    const linked = await swarmInProcess(root, ['memory', 'evil', '--cwd', repo]);
    expect(linked).toMatchObject({ exitCode: 2, stdout: '', stderr: expect.stringMatching(/^swarm: .*evil\.md is a symbolic link: a team memory is a plain/) });
    const missing = await swarmInProcess(root, ['memory', 'nope', '--cwd', repo]);
    expect(missing).toMatchObject({ exitCode: 1, stderr: `swarm: no nope.md in the team memory of ${repo} (${dir}); swarm memory lists what there is` });
    for (const r of [climbs, linked, missing]) expect(r.stderr.split('\n')).toHaveLength(1);
  });
});

describe('swarm memory: bad flags', () => {
  it('--cwd and --team together, a --cwd that is no directory, a team with no cwd, a team that does not exist', async () => {
    await createTeam(root, { name: 'sq', cwd: repo });
    expect(await swarmInProcess(root, ['memory', '--cwd', repo, '--team', 'sq'])).toMatchObject({ exitCode: 2, stderr: 'swarm: --cwd and --team both name the project: pass one' });
    expect(await swarmInProcess(root, ['memory', '--cwd', path.join(root, 'nope')])).toMatchObject({ exitCode: 2, stderr: `swarm: --cwd ${path.join(root, 'nope')} is not a directory; pass the project's directory` });
    await updateTeam(new Team(root, 'sq'), (c) => {
      c.members[0]!.cwd = '';
    });
    expect(await swarmInProcess(root, ['memory', '--team', 'sq'])).toMatchObject({ exitCode: 2, stderr: 'swarm: team sq records no cwd for team-lead in config.json; pass the project directory with --cwd' });
    const unknown = await swarmInProcess(root, ['memory', '--team', 'ghost']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr.split('\n')).toHaveLength(1);
  });
});
