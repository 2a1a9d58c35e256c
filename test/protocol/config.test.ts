// config.json schema (SPEC §3.2): fields other tools write are kept through parse → stringify.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InboxSchema, isPermissionMode, messageKey, parsePermissionMode, TeamConfigSchema } from '../../src/protocol/index.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8'));

describe('TeamConfigSchema', () => {
  it('keeps unknown top-level and member-level fields through parse → stringify', () => {
    const raw = fixture('config.json') as Record<string, unknown>;
    const again = JSON.parse(JSON.stringify(TeamConfigSchema.parse(raw))) as Record<string, unknown>;
    expect(again).toEqual(raw); // the fixture has every default filled, so nothing is added either
    expect(again.futureField).toBe('kept by swarm');
    expect(again.hiddenPaneIds).toEqual(['%7']);
    const alice = (again.members as Record<string, unknown>[])[1]!;
    expect(alice.worktreePath).toBe('/home/dev/project/.worktrees/alice');
    expect(alice.futureField).toEqual({ nested: [1, 2, 3], flag: true });
  });

  it('keeps unknown fields inside swarm’s own section and leadProcess', () => {
    const raw = {
      name: 't',
      createdAt: 1,
      leadAgentId: 'team-lead@t',
      members: [],
      leadProcess: { pid: 1, claimedAt: 2, host: 'h' },
      swarm: { rules: { allow: ['Bash(npm test:*)'], deny: [], note: 'x' }, extra: true },
    };
    const again = JSON.parse(JSON.stringify(TeamConfigSchema.parse(raw)));
    expect(again.leadProcess.host).toBe('h');
    expect(again.swarm.extra).toBe(true);
    expect(again.swarm.rules.note).toBe('x');
  });

  it('fills defaults for a minimal member', () => {
    const c = TeamConfigSchema.parse({
      name: 't',
      createdAt: 1,
      leadAgentId: 'team-lead@t',
      members: [{ agentId: 'team-lead@t', name: 'team-lead', joinedAt: 1 }],
    });
    expect(c.leadSessionId).toBe('');
    expect(c.members[0]).toMatchObject({ tmuxPaneId: '', cwd: '', subscriptions: [] });
  });

  it('rejects a config without members or with a non-numeric createdAt', () => {
    expect(TeamConfigSchema.safeParse({ name: 't', createdAt: 1, leadAgentId: 'x' }).success).toBe(false);
    expect(TeamConfigSchema.safeParse({ name: 't', createdAt: '1', leadAgentId: 'x', members: [] }).success).toBe(false);
  });
});

describe('InboxSchema', () => {
  it('reads the Claude Code 2.1.112 shape (no msg_id/type) and the newer shape, keeping unknown fields', () => {
    const old = InboxSchema.parse(fixture('inbox-2.1.112.json'));
    expect(old).toHaveLength(4);
    expect(old[0]).toMatchObject({ from: 'alice', read: true, summary: 'review done' });
    expect(old[0]!.msg_id).toBeUndefined();
    const newer = InboxSchema.parse(fixture('inbox-newer.json'));
    expect(newer[0]).toMatchObject({ type: 'message', msgV: 1, msg_id: '0b6f3e1a-2c4d-4e5f-8a9b-0c1d2e3f4a5b' });
    expect((newer[2] as Record<string, unknown>).futureEntryField).toEqual({ kept: true });
    expect(JSON.parse(JSON.stringify(newer))).toEqual(fixture('inbox-newer.json'));
  });

  it('messageKey: msg_id when present, otherwise a stable hash of sender, time and text', () => {
    const base = { from: 'a', timestamp: 't', text: 'x' };
    expect(messageKey({ ...base, msg_id: 'id-1' })).toBe('id-1');
    expect(messageKey(base)).toBe(messageKey({ ...base }));
    expect(messageKey(base)).not.toBe(messageKey({ ...base, text: 'y' }));
    expect(messageKey(base)).not.toBe(messageKey({ ...base, from: 'b' }));
    expect(messageKey(base)).not.toBe(messageKey({ ...base, timestamp: 'u' }));
  });
});

describe('parsePermissionMode', () => {
  it('returns a valid mode; refuses anything else in one line: where, what was expected, what came, the fix', () => {
    expect(parsePermissionMode('acceptEdits', '--permission-mode')).toBe('acceptEdits');
    expect(() => parsePermissionMode('AcceptEdits', '--permission-mode')).toThrow(
      '--permission-mode: expected default|acceptEdits|bypassPermissions|plan, got "AcceptEdits"; pass one of those (case matters)',
    );
    expect(() => parsePermissionMode(undefined, 'mode')).toThrow('mode: expected default|acceptEdits|bypassPermissions|plan, got undefined;');
  });

  it('narrows to the allowed modes, and says which', () => {
    expect(() => parsePermissionMode('plan', '--mode', ['default', 'acceptEdits'])).toThrow('--mode: expected default|acceptEdits, got "plan"');
    expect(parsePermissionMode('default', '--mode', ['default', 'acceptEdits'])).toBe('default');
  });

  it('isPermissionMode is the same set, without the error', () => {
    expect(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'Plan', '', 3].map(isPermissionMode)).toEqual([true, true, true, true, false, false, false]);
  });
});
