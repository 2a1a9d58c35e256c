// isOrphaned: a pending request nobody will act on (its worker gone from the roster, or its pid
// dead). A worker on another machine (`host`, the ssh backend) is never judged by a pid check
// here: the same number on this machine is some other process, or none.
import { describe, expect, it } from 'vitest';
import { isOrphaned } from '../../src/permissions/pending-list.js';
import type { Member, TeamConfig } from '../../src/protocol/config.js';
import type { PendingRequest } from '../../src/protocol/permission.js';

const member = (name: string, extra: Partial<Member> = {}): Member => ({
  agentId: `${name}@t`, name, joinedAt: 0, tmuxPaneId: '%1', cwd: '/w', subscriptions: [], pid: 4242, ...extra,
});
const config = (members: Member[]): TeamConfig => ({ name: 't', createdAt: 0, leadAgentId: 'team-lead@t', leadSessionId: '', members });
const request = (workerName: string): PendingRequest =>
  ({ id: 'perm-1-a', workerId: `${workerName}@t`, workerName, teamName: 't', toolName: 'Bash', toolUseId: 'toolu_1', description: '', input: {}, permissionSuggestions: [], status: 'pending', createdAt: 0, workerPid: 4242 }) as PendingRequest;

describe('isOrphaned', () => {
  it('a local worker: by its pid; a worker no longer a member: orphaned', () => {
    expect(isOrphaned(config([member('w1')]), request('w1'), () => false)).toBe(true);
    expect(isOrphaned(config([member('w1')]), request('w1'), () => true)).toBe(false);
    expect(isOrphaned(config([]), request('w1'), () => true)).toBe(true);
  });

  it('a worker on another machine is not judged by a local pid check', () => {
    const asked: number[] = [];
    expect(isOrphaned(config([member('w1', { host: 'build1', backendType: 'ssh' })]), request('w1'), (pid) => (asked.push(pid), false))).toBe(false);
    expect(asked).toEqual([]);
  });
});
