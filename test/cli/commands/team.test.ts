// `swarm team create|list|show|delete` (SPEC §6), human and --json output, in-process (main(argv, io));
// the first test runs the real executable, end to end.
// (execa strips the final newline of stdout/stderr.)
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TeamConfigSchema } from '../../../src/protocol/index.js';
import { addMember, createTeam, teamExists, teamPaths, updateMember } from '../../../src/team/index.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { listTree } from '../../support/fs-tree.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { Team } from '../../../src/team/team.js';

let root: string;
useTempRoot((dir) => (root = dir));

async function configOnDisk(team: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(teamPaths(root, team).config, 'utf8'));
}

describe('swarm team', () => {
  it('create (human), then again with a taken name and --rename → a free word-slug name, said on stdout', async () => {
    const a = await swarm(root, ['team', 'create', 'review-squad', '--description', 'PR review']);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(a.stdout).toBe('created team review-squad\n  export SWARM_TEAM=review-squad');
    expect(TeamConfigSchema.parse(await configOnDisk('review-squad'))).toMatchObject({ name: 'review-squad', description: 'PR review' });

    const b = await swarm(root, ['team', 'create', 'review-squad', '--rename']);
    expect(b.exitCode, b.stderr).toBe(0);
    const m = /^team "review-squad" exists; created "([a-z]+-[a-z]+-\d{2})" instead\n {2}export SWARM_TEAM=\1$/.exec(b.stdout);
    expect(m, b.stdout).not.toBeNull();
    expect(await teamExists(new Team(root, m![1]!))).toBe(true);
  });

  it('create --json prints config.json (plus renamedFrom when renamed)', async () => {
    const a = await swarmInProcess(root, ['team', 'create', 'alpha', '--json']);
    expect(a.exitCode, a.stderr).toBe(0);
    const printed = JSON.parse(a.stdout) as Record<string, unknown>;
    expect(printed).toEqual(await configOnDisk('alpha'));
    expect(printed).toMatchObject({ name: 'alpha', leadAgentId: 'team-lead@alpha', members: [{ name: 'team-lead', color: 'red' }] });

    const b = JSON.parse((await swarmInProcess(root, ['team', 'create', 'alpha', '--rename', '--json'])).stdout) as Record<string, unknown>;
    expect(b.renamedFrom).toBe('alpha');
    expect(b.name).not.toBe('alpha');
  });

  it('create on a taken name (with or without --no-rename) → exit 1, one line saying what to do, nothing new on disk', async () => {
    await createTeam(root, { name: 'alpha' });
    const before = await listTree(root);
    for (const extra of [[], ['--no-rename'], ['--json']]) {
      const r = await swarmInProcess(root, ['team', 'create', 'alpha', ...extra]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        'swarm: team "alpha" already exists; use it (--team alpha), delete it (swarm team delete alpha), or pass --rename to create one under a free name',
      );
      expect(await listTree(root)).toEqual(before);
    }
  });

  it('list (human and --json)', async () => {
    const empty = await swarmInProcess(root, ['team', 'list']);
    expect(empty.exitCode).toBe(0);
    expect(empty.stdout).toMatch(/^no teams under /);
    expect(JSON.parse((await swarmInProcess(root, ['team', 'list', '--json'])).stdout)).toEqual([]);

    await createTeam(root, { name: 'beta-longer-name', description: 'second' });
    await createTeam(root, { name: 'alpha' });
    await addMember(new Team(root, 'alpha'), { name: 'w1' });
    const human = await swarmInProcess(root, ['team', 'list']);
    expect(human.stdout).toBe('alpha             1 teammate\nbeta-longer-name  0 teammates  second'); // aligned columns
    const json = JSON.parse((await swarmInProcess(root, ['team', 'list', '--json'])).stdout) as Record<string, unknown>[];
    expect(json).toEqual([
      { name: 'alpha', members: 1, createdAt: expect.any(Number) },
      { name: 'beta-longer-name', description: 'second', members: 0, createdAt: expect.any(Number) },
    ]);
  });

  it('show (by name, --team or SWARM_TEAM; human and --json)', async () => {
    await createTeam(root, { name: 'alpha', description: 'the A team' });
    await addMember(new Team(root, 'alpha'), { name: 'w1', model: 'claude-sonnet-4-5', agentType: 'reviewer' });
    await updateMember(new Team(root, 'alpha'), 'w1', { tmuxPaneId: '%3', backendType: 'tmux' });
    const human = await swarmInProcess(root, ['team', 'show', 'alpha']);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('alpha  the A team');
    expect(lines[2]).toMatch(/^ {2}team-lead\s+leader\s*$/);
    expect(lines[3]).toMatch(/^ {2}w1\s+reviewer\s+tmux %3 claude-sonnet-4-5$/);

    const viaFlag = await swarmInProcess(root, ['team', 'show', '--team', 'alpha', '--json']);
    const viaEnv = await swarmInProcess(root, ['team', 'show', '--json'], { SWARM_TEAM: 'alpha' });
    // config.json plus the leader's verify key (SPEC §6)
    const { leadVerifyKey, ...config } = JSON.parse(viaFlag.stdout) as Record<string, unknown>;
    expect(config).toEqual(await configOnDisk('alpha'));
    expect(leadVerifyKey).toMatch(/^\d+\.[A-Za-z0-9_-]+$/);
    expect(viaEnv.stdout).toBe(viaFlag.stdout);

    const missing = await swarmInProcess(root, ['team', 'show', 'nope']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^swarm: no team "nope".*$/);
  });

  it('delete removes the team (--json says which); a missing team → exit 1', async () => {
    await createTeam(root, { name: 'alpha' });
    await createTeam(root, { name: 'beta' });
    const r = await swarmInProcess(root, ['team', 'delete', 'alpha', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ deleted: 'alpha' });
    expect(await teamExists(new Team(root, 'alpha'))).toBe(false);
    expect(await teamExists(new Team(root, 'beta'))).toBe(true);
    // The team's scratchpad goes with it; another team's stays.
    await expect(fs.access(teamPaths(root, 'alpha').scratchpad)).rejects.toThrow(/ENOENT/);
    await fs.access(teamPaths(root, 'beta').scratchpad);
    const human = await swarmInProcess(root, ['team', 'delete'], { SWARM_TEAM: 'beta' });
    expect(human.stdout).toBe('deleted team beta');
    await expect(fs.access(teamPaths(root, 'beta').scratchpad)).rejects.toThrow(/ENOENT/);
    const again = await swarmInProcess(root, ['team', 'delete', 'alpha']);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toMatch(/^swarm: no team "alpha".*$/);
  });

  it('delete refuses while a teammate process is alive, unless --force', async () => {
    await createTeam(root, { name: 'alpha' });
    await addMember(new Team(root, 'alpha'), { name: 'w1' });
    await updateMember(new Team(root, 'alpha'), 'w1', { pid: process.pid }); // this test process: surely alive
    const r = await swarmInProcess(root, ['team', 'delete', 'alpha']);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/^swarm: team "alpha" has live teammates \(w1\).*--force$/);
    expect(await teamExists(new Team(root, 'alpha'))).toBe(true);
    const forced = await swarmInProcess(root, ['team', 'delete', 'alpha', '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(await teamExists(new Team(root, 'alpha'))).toBe(false);
  });
});
