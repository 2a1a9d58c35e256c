// Team files (SPEC §3, §3.1, §3.2): create, rename on a taken name, list/show/delete, the roster,
// and what happens with invalid names and a corrupt config.json.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { isSwarmError, TeamConfigSchema } from '../../src/protocol/index.js';
import {
  addMember,
  createTeam,
  deleteTeam,
  listTeams,
  readTeam,
  removeMember,
  teamExists,
  teamPaths,
  updateMember,
  updateTeam,
} from '../../src/team/index.js';
import { listTree, modeOf } from '../support/fs-tree.js';
import { errorKind } from '../support/team-root.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';
import { writeDamaged } from '../support/damaged-file.js';

let root: string;
useTempRoot((dir) => (root = dir));


async function rawConfig(team: string): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(teamPaths(root, team).config, 'utf8')) as Record<string, unknown>;
}

describe('createTeam', () => {
  it('creates config.json (0600) and the team directories (0700), leader first in red', async () => {
    const { config, renamedFrom } = await createTeam(root, { name: 'review-squad', description: 'PR review', cwd: '/w', now: 1000 });
    expect(renamedFrom).toBeUndefined();
    const p = teamPaths(root, 'review-squad');
    for (const d of [path.join(root, 'teams'), p.dir, p.inboxes, p.permissions, p.pending, p.resolved, p.statusDir, p.logsDir, path.join(root, 'scratchpad'), p.scratchpad]) {
      expect(await modeOf(d), d).toBe(0o700);
    }
    expect(await modeOf(p.config)).toBe(0o600);
    const onDisk = await rawConfig('review-squad');
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(config)));
    expect(TeamConfigSchema.parse(onDisk)).toMatchObject({
      name: 'review-squad',
      description: 'PR review',
      createdAt: 1000,
      leadAgentId: 'team-lead@review-squad',
    });
    expect(config.leadSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(config.members).toHaveLength(1);
    expect(config.members[0]).toMatchObject({
      agentId: 'team-lead@review-squad',
      name: 'team-lead',
      color: 'red',
      joinedAt: 1000,
      tmuxPaneId: '',
      cwd: '/w',
      subscriptions: [],
    });
    // pretty-printed, 2 spaces
    expect(await fs.readFile(p.config, 'utf8')).toMatch(/^\{\n {2}"name": "review-squad",/);
  });

  it("a scratchpad/ that is a symlink fails the create in one line, and the name is not left claimed", async () => {
    await fs.mkdir(path.join(root, 'elsewhere'));
    await fs.symlink(path.join(root, 'elsewhere'), path.join(root, 'scratchpad'));
    await expect(createTeam(root, { name: 'squad' })).rejects.toThrow(`${path.join(root, 'scratchpad')} is a symlink; swarm does not use files through links`);
    expect(await teamExists(new Team(root, 'squad'))).toBe(false);
    expect(await listTree(path.join(root, 'teams'))).toEqual([]);
    expect(await listTree(path.join(root, 'elsewhere'))).toEqual([]);
  });

  it('rename: picks a free word-slug name when the name is taken, and says so', async () => {
    await createTeam(root, { name: 'squad' });
    const before = await fs.readFile(teamPaths(root, 'squad').config, 'utf8');
    const { config, renamedFrom } = await createTeam(root, { name: 'squad', rename: true });
    expect(renamedFrom).toBe('squad');
    expect(config.name).toMatch(/^[a-z]+-[a-z]+-\d{2}$/);
    expect(config.leadAgentId).toBe(`team-lead@${config.name}`);
    expect((await readTeam(new Team(root, config.name))).name).toBe(config.name);
    expect(await fs.readFile(teamPaths(root, 'squad').config, 'utf8')).toBe(before);
  });

  it('by default a taken name is SwarmError "exists" and nothing new appears on disk', async () => {
    await createTeam(root, { name: 'squad' });
    const before = await listTree(root);
    expect(await errorKind(createTeam(root, { name: 'squad' }))).toBe('exists');
    expect(await listTree(root)).toEqual(before);
  });

  it.each(['../x', 'a/b', '', 'Squad', '-x', 'a'.repeat(65), 'a\u0000b', 'a b', 'x@y', 'café', '.', '..'])(
    'invalid name %j creates nothing at all',
    async (name) => {
      expect(await listTree(root)).toEqual([]);
      expect(await errorKind(createTeam(root, { name }))).toBe('invalid_name');
      expect(await errorKind(createTeam(root, { name, rename: true }))).toBe('invalid_name');
      expect(await listTree(root)).toEqual([]);
    },
  );

  it('two concurrent creates of one name never share it', async () => {
    const results = await Promise.all([createTeam(root, { name: 'race', rename: true }), createTeam(root, { name: 'race', rename: true })]);
    const names = results.map((r) => r.config.name);
    expect(new Set(names).size).toBe(2);
    expect(names).toContain('race');
    expect(results.filter((r) => r.renamedFrom === 'race')).toHaveLength(1);
  });
});

describe('list, show, delete', () => {
  it('lists teams sorted with teammate counts; ignores stray directories; flags a corrupt one', async () => {
    expect(await listTeams(root)).toEqual([]);
    await createTeam(root, { name: 'beta', now: 2 });
    await createTeam(root, { name: 'alpha', description: 'first', now: 1 });
    await addMember(new Team(root, 'alpha'), { name: 'w1' });
    await fs.mkdir(path.join(root, 'teams', 'Not_A_Team'));
    await createTeam(root, { name: 'gamma' });
    await writeDamaged(teamPaths(root, 'gamma').config, '{ broken');
    const teams = await listTeams(root);
    expect(teams.map((t) => t.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(teams[0]).toEqual({ name: 'alpha', description: 'first', members: 1, createdAt: 1 });
    expect(teams[1]).toEqual({ name: 'beta', members: 0, createdAt: 2 });
    expect(teams[2]!.problem).toMatch(/config.json does not parse/);
  });

  it('readTeam of a missing team is not_found; of an invalid name is invalid_name', async () => {
    expect(await errorKind(readTeam(new Team(root, 'nope')))).toBe('not_found');
    expect(await errorKind((async () => readTeam(new Team(root, '../etc')))())).toBe('invalid_name');
    expect(await teamExists(new Team(root, 'nope'))).toBe(false);
  });

  it('deleteTeam removes the directory, its task list and its scratchpad; a missing team is not_found', async () => {
    await createTeam(root, { name: 'gone' });
    await createTeam(root, { name: 'kept' });
    for (const t of ['gone', 'kept']) {
      await fs.mkdir(teamPaths(root, t).tasks.dir, { recursive: true });
      await fs.writeFile(teamPaths(root, t).tasks.task('1'), '{}');
      await fs.mkdir(path.join(teamPaths(root, t).scratchpad, 'sub'));
      await fs.writeFile(path.join(teamPaths(root, t).scratchpad, 'sub/findings.md'), 'notes');
    }
    // A link in the scratchpad goes, what it points to stays.
    const outside = path.join(root, 'outside.txt');
    await fs.writeFile(outside, 'mine');
    await fs.symlink(outside, path.join(teamPaths(root, 'gone').scratchpad, 'link'));
    await deleteTeam(new Team(root, 'gone'));
    expect(await teamExists(new Team(root, 'gone'))).toBe(false);
    await expect(fs.access(teamPaths(root, 'gone').dir)).rejects.toThrow();
    await expect(fs.access(teamPaths(root, 'gone').tasks.dir)).rejects.toThrow();
    await expect(fs.access(teamPaths(root, 'gone').scratchpad)).rejects.toThrow(/ENOENT/);
    expect(await fs.readFile(outside, 'utf8')).toBe('mine');
    await fs.access(path.join(teamPaths(root, 'kept').scratchpad, 'sub/findings.md'));
    await fs.access(teamPaths(root, 'kept').tasks.task('1'));
    expect(await teamExists(new Team(root, 'kept'))).toBe(true);
    expect(await errorKind(deleteTeam(new Team(root, 'gone')))).toBe('not_found');
    expect(await errorKind((async () => deleteTeam(new Team(root, '../kept')))())).toBe('invalid_name');
  });
});

describe('members', () => {
  beforeEach(async () => {
    await createTeam(root, { name: 't' });
  });

  it('addMember stores a validated member with the next colour, after the leader', async () => {
    const w1 = await addMember(new Team(root, 't'), { name: 'w1', model: 'claude-sonnet-4-5', prompt: 'do it', cwd: '/src' }, 5);
    expect(w1).toMatchObject({ agentId: 'w1@t', name: 'w1', color: 'blue', joinedAt: 5, tmuxPaneId: '', cwd: '/src', subscriptions: [] });
    const w2 = await addMember(new Team(root, 't'), { name: 'w2' });
    expect(w2.color).toBe('green');
    const config = await readTeam(new Team(root, 't'));
    expect(config.members.map((m) => m.name)).toEqual(['team-lead', 'w1', 'w2']);
    expect(config.members[1]).toEqual(w1);
  });

  it('colours go round-robin, leader first, and wrap after eight', async () => {
    for (let i = 1; i <= 9; i++) await addMember(new Team(root, 't'), { name: `w${i}` });
    const colors = (await readTeam(new Team(root, 't'))).members.map((m) => m.color);
    expect(colors).toEqual(['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan', 'red', 'blue']);
  });

  it('a duplicate name (any case) is rejected with "exists" and the file is unchanged', async () => {
    await addMember(new Team(root, 't'), { name: 'Alice' });
    const before = await fs.readFile(teamPaths(root, 't').config, 'utf8');
    for (const name of ['Alice', 'alice', 'ALICE']) {
      expect(await errorKind(addMember(new Team(root, 't'), { name })), name).toBe('exists');
    }
    expect(await fs.readFile(teamPaths(root, 't').config, 'utf8')).toBe(before);
  });

  it.each(['team-lead', 'Team-Lead', 'user', 'SYSTEM', 'main', '*', '../x', 'a/b', '', 'a@b', 'a\u0000'])(
    'member name %j is rejected before the file is touched',
    async (name) => {
      const before = await fs.readFile(teamPaths(root, 't').config, 'utf8');
      expect(await errorKind(addMember(new Team(root, 't'), { name }))).toBe('invalid_name');
      expect(await fs.readFile(teamPaths(root, 't').config, 'utf8')).toBe(before);
    },
  );

  it('concurrent adds all land (the config lock serialises them)', async () => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => addMember(new Team(root, 't'), { name: `c${i}` })));
    const names = (await readTeam(new Team(root, 't'))).members.map((m) => m.name).sort();
    expect(names).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'team-lead']);
  });

  it('addMember to a missing team is not_found and creates nothing', async () => {
    const before = await listTree(root);
    expect(await errorKind(addMember(new Team(root, 'nope'), { name: 'w1' }))).toBe('not_found');
    expect(await listTree(root)).toEqual(before);
  });

  it('updateMember patches fields but never the name or agentId; unknown member is not_found', async () => {
    await addMember(new Team(root, 't'), { name: 'w1' });
    const m = await updateMember(new Team(root, 't'), 'W1', { tmuxPaneId: '%5', backendType: 'tmux', pid: 123, name: 'evil', agentId: 'x@y' });
    expect(m).toMatchObject({ name: 'w1', agentId: 'w1@t', tmuxPaneId: '%5', backendType: 'tmux', pid: 123 });
    expect((await readTeam(new Team(root, 't'))).members[1]).toMatchObject({ name: 'w1', tmuxPaneId: '%5', pid: 123 });
    expect(await errorKind(updateMember(new Team(root, 't'), 'ghost', { pid: 1 }))).toBe('not_found');
  });

  it('updateMember works a patch out from the member under the lock, and one that changes nothing writes nothing', async () => {
    const team = new Team(root, 't');
    await addMember(team, { name: 'w1' });
    const file = teamPaths(root, 't').config;
    await updateMember(team, 'w1', (m) => ({ pid: (m.pid ?? 0) + 7 }));
    expect((await readTeam(team)).members[1]!.pid).toBe(7);
    // The same values again, as a patch and as a function: the file is not replaced. (A second name
    // for it tells: a rename over config.json leaves that name on the old file. Inode numbers do
    // not: ext4 hands a freed one to the next temp file.)
    await fs.link(file, `${file}.seen`);
    await updateMember(team, 'w1', { pid: 7 });
    await updateMember(team, 'w1', () => ({ pid: 7, hibernatedAt: undefined }));
    expect((await fs.stat(file)).nlink).toBe(2);
    await updateMember(team, 'w1', { pid: 8 });
    expect((await fs.stat(file)).nlink).toBe(1);
  });

  it('removeMember removes by name (any case), returns undefined for an absent one, and refuses the leader', async () => {
    await addMember(new Team(root, 't'), { name: 'w1' });
    await addMember(new Team(root, 't'), { name: 'w2' });
    expect((await removeMember(new Team(root, 't'), 'W1'))?.name).toBe('w1');
    expect(await removeMember(new Team(root, 't'), 'w1')).toBeUndefined();
    expect((await readTeam(new Team(root, 't'))).members.map((m) => m.name)).toEqual(['team-lead', 'w2']);
    expect(await errorKind(removeMember(new Team(root, 't'), 'Team-Lead'))).toBe('invalid_input');
    expect((await readTeam(new Team(root, 't'))).members[0]!.name).toBe('team-lead');
  });

  it('updateTeam writes what the callback changed, under the lock', async () => {
    const result = await updateTeam(new Team(root, 't'), (c) => {
      c.description = 'new';
      return 'done';
    });
    expect(result).toBe('done');
    expect((await rawConfig('t')).description).toBe('new');
    expect(await errorKind(updateTeam(new Team(root, 'nope'), () => undefined))).toBe('not_found');
  });
});

describe('corrupt config.json', () => {
  it.each([
    ['invalid JSON', '{ "name": "t", '],
    ['wrong shape', '{"name": "t", "members": "none"}'],
    ['empty file', ''],
  ])('%s: readTeam throws "corrupt" saying how to mend it, and the file stays where it is, untouched', async (_what, bytes) => {
    await createTeam(root, { name: 't' });
    const p = teamPaths(root, 't');
    await writeDamaged(p.config, bytes);
    const err = await readTeam(new Team(root, 't')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isSwarmError(err, 'corrupt')).toBe(true);
    expect((err as Error).message).toContain(`team "t": ${p.config} does not parse`);
    expect((err as Error).message).toContain(`jq . '${p.config}'`);
    expect(await fs.readFile(p.config, 'utf8')).toBe(bytes);
    expect((await fs.readdir(p.dir)).filter((f) => f.includes('.corrupt-'))).toEqual([]);
    // the team is not gone: it is still found, and still broken, on the next read
    expect(await teamExists(new Team(root, 't'))).toBe(true);
    expect(await errorKind(readTeam(new Team(root, 't')))).toBe('corrupt');
    expect((await listTeams(root)).map((t) => [t.name, /does not parse/.test(t.problem ?? '')])).toEqual([['t', true]]);
  });

  it('emptied for good after this process read it (a Claude Code teammate that exited mid-rewrite): put back, said on stderr, the empty file kept aside', async () => {
    await createTeam(root, { name: 't' });
    const team = new Team(root, 't');
    await addMember(team, { name: 'w1' });
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead', 'w1']);
    const p = teamPaths(root, 't');
    await writeDamaged(p.config, '');
    const warned: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (warned.push(String(chunk)), true));
    try {
      expect(await removeMember(team, 'w1')).toMatchObject({ name: 'w1' });
    } finally {
      spy.mockRestore();
    }
    const [kept] = (await fs.readdir(p.dir)).filter((f) => f.includes('.corrupt-'));
    expect(warned).toEqual([
      `swarm: warning: team "t": ${p.config} was empty (a writer stopped between emptying and writing it); put back the copy this command read 0 s ago, empty file kept as ${path.join(p.dir, kept!)}\n`,
    ]);
    expect(await fs.readFile(path.join(p.dir, kept!), 'utf8')).toBe('');
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead']);
  });

  it('addMember on a corrupt config is "corrupt", writes nothing and does not invent a team', async () => {
    await createTeam(root, { name: 't' });
    const p = teamPaths(root, 't');
    await writeDamaged(p.config, '{ nope');
    expect(await errorKind(addMember(new Team(root, 't'), { name: 'w1' }))).toBe('corrupt');
    expect(await fs.readFile(p.config, 'utf8')).toBe('{ nope');
    expect((await fs.readdir(p.dir)).filter((f) => f.includes('.corrupt-'))).toEqual([]);
  });

  it('a team whose config.json was moved aside (by an older swarm) is still found, and the error gives the mv that restores it', async () => {
    const { config } = await createTeam(root, { name: 't' });
    const p = teamPaths(root, 't');
    await fs.rename(p.config, `${p.config}.corrupt-1000`);
    await fs.writeFile(`${p.config}.corrupt-2000`, JSON.stringify(config));
    expect(await teamExists(new Team(root, 't'))).toBe(true);
    const err = await readTeam(new Team(root, 't')).catch((e: unknown) => e as Error);
    expect(isSwarmError(err, 'corrupt')).toBe(true);
    expect((err as Error).message).toContain(`mv '${p.config}.corrupt-2000' '${p.config}'`); // the newest copy
    expect(await errorKind(updateTeam(new Team(root, 't'), () => undefined))).toBe('corrupt');
    await fs.rename(`${p.config}.corrupt-2000`, p.config); // doing what it says brings the team back
    expect((await readTeam(new Team(root, 't'))).name).toBe('t');
  });
});
