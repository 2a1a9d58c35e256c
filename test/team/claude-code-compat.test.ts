// Wire compatibility (SPEC §1, §3.2, §3.3): files in Claude Code's shapes are read by readTeam and
// Mailbox, and a rewrite by swarm keeps every field it does not know.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/index.js';
import { parseControl } from '../../src/protocol/index.js';
import { addMember, readTeam, removeMember, teamPaths, updateMember, updateTeam } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');
const TEAM = 'review-squad';

let root: string;
useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  const p = teamPaths(root, TEAM);
  await fs.mkdir(p.inboxes, { recursive: true });
  await fs.copyFile(path.join(FIXTURES, 'config.json'), p.config);
});

async function fixture(name: string): Promise<unknown> {
  return JSON.parse(await fs.readFile(path.join(FIXTURES, name), 'utf8'));
}
async function onDisk(file: string): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
}

function expectUnknownFieldsKept(config: Record<string, unknown>): void {
  expect(config.futureField).toBe('kept by swarm');
  expect(config.hiddenPaneIds).toEqual(['%7']);
  expect(config.teamAllowedPaths).toEqual(['/home/dev/project']);
  const alice = (config.members as Record<string, unknown>[]).find((m) => m.name === 'alice')!;
  expect(alice.worktreePath).toBe('/home/dev/project/.worktrees/alice');
  expect(alice.futureField).toEqual({ nested: [1, 2, 3], flag: true });
}

describe('a Claude Code config.json', () => {
  it('is read by readTeam', async () => {
    const c = await readTeam(new Team(root, TEAM));
    expect(c.leadAgentId).toBe('team-lead@review-squad');
    expect(c.members.map((m) => m.name)).toEqual(['team-lead', 'alice', 'bob']);
    expect(c.members[1]).toMatchObject({ tmuxPaneId: '%3', backendType: 'tmux', color: 'blue' });
  });

  it('keeps unknown fields (top-level and member-level) after addMember', async () => {
    const w = await addMember(new Team(root, TEAM), { name: 'carol' });
    expect(w.color).toBe('red'); // the first palette colour nobody uses (this leader has none)
    const config = await onDisk(teamPaths(root, TEAM).config);
    expectUnknownFieldsKept(config);
    expect((config.members as { name: string }[]).map((m) => m.name)).toEqual(['team-lead', 'alice', 'bob', 'carol']);
  });

  it('keeps unknown fields after updateTeam, updateMember and removeMember', async () => {
    await updateTeam(new Team(root, TEAM), (c) => {
      c.description = 'changed';
    });
    await updateMember(new Team(root, TEAM), 'alice', { tmuxPaneId: '%9' });
    await removeMember(new Team(root, TEAM), 'bob');
    const config = await onDisk(teamPaths(root, TEAM).config);
    expectUnknownFieldsKept(config);
    expect(config.description).toBe('changed');
    expect((config.members as { name: string; tmuxPaneId: string }[]).map((m) => [m.name, m.tmuxPaneId])).toEqual([
      ['team-lead', ''],
      ['alice', '%9'],
    ]);
  });

  it('a no-op update rewrites the file without losing or changing anything', async () => {
    await updateTeam(new Team(root, TEAM), () => undefined);
    expect(await onDisk(teamPaths(root, TEAM).config)).toEqual(await fixture('config.json'));
  });
});

describe('Claude Code inboxes', () => {
  it('the 2.1.112 shape (no msg_id, no type) is read, consumed once, and keeps its shape', async () => {
    const mb = new Mailbox({ team: new Team(root, TEAM) });
    const file = mb.paths.inbox('team-lead');
    await fs.copyFile(path.join(FIXTURES, 'inbox-2.1.112.json'), file);
    const all = await mb.read('team-lead');
    expect(all).toHaveLength(4);
    expect(all.map((m) => m.from)).toEqual(['alice', 'alice', 'bob', 'bob']);
    const frame = parseControl(all[1]!.text);
    expect(frame.kind === 'control' && frame.message.type).toBe('permission_request');
    expect((await mb.unread('team-lead')).map((m) => m.timestamp)).toEqual([
      '2025-12-02T12:00:02.000Z',
      '2025-12-02T12:00:03.000Z',
      '2025-12-02T12:00:04.000Z',
    ]);
    const got = await mb.consume('team-lead');
    expect(got.map((m) => m.timestamp)).toEqual(['2025-12-02T12:00:02.000Z', '2025-12-02T12:00:03.000Z', '2025-12-02T12:00:04.000Z']);
    expect(await mb.consume('team-lead')).toEqual([]);
    // Same entries, now all read; no fields added that an old reader would trip on.
    const expected = ((await fixture('inbox-2.1.112.json')) as Record<string, unknown>[]).map((m) => ({ ...m, read: true }));
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(expected);
  });

  it('the newer shape (type, msgV, msg_id, lead_sig) is read with every field, and unknown ones survive an append', async () => {
    const mb = new Mailbox({ team: new Team(root, TEAM) });
    const file = mb.paths.inbox('alice');
    await fs.copyFile(path.join(FIXTURES, 'inbox-newer.json'), file);
    const all = await mb.read('alice');
    expect(all[0]).toMatchObject({ type: 'message', msgV: 1, msg_id: '0b6f3e1a-2c4d-4e5f-8a9b-0c1d2e3f4a5b', lead_sig: expect.any(String) });
    expect(parseControl(all[1]!.text)).toMatchObject({ kind: 'control', message: { type: 'shutdown_request' } });
    expect(parseControl(all[2]!.text)).toMatchObject({ kind: 'unknown', type: 'team_status_v2' });
    await mb.append('alice', { from: 'bob', text: 'hi' });
    const after = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>[];
    expect(after.slice(0, 3)).toEqual(await fixture('inbox-newer.json'));
    expect(after[3]).toMatchObject({ from: 'bob', text: 'hi', read: false, type: 'message', msgV: 1 });
  });
});
