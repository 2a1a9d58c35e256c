// Id generators (SPEC §3.1): formats, uniqueness across many calls, and safe request ids.
import { describe, expect, it } from 'vitest';
import {
  isSafeRequestId,
  newMsgId,
  newPermissionId,
  newPlanApprovalId,
  newSessionId,
  newShutdownId,
} from '../../src/protocol/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const N = 2_000;

describe('ids', () => {
  it('msg ids and session ids are v4 uuids, all distinct', () => {
    const ids = Array.from({ length: N }, () => newMsgId());
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(N);
    expect(newSessionId()).toMatch(UUID);
  });

  it('permission ids are perm-<epochMs>-<random>, distinct even in the same millisecond', () => {
    const now = 1733140000000;
    const ids = Array.from({ length: N }, () => newPermissionId(now));
    for (const id of ids) {
      expect(id).toMatch(/^perm-1733140000000-[0-9a-f]{12}$/);
      expect(isSafeRequestId(id)).toBe(true);
    }
    expect(new Set(ids).size).toBe(N);
    expect(newPermissionId()).toMatch(/^perm-\d{13}-[0-9a-f]{12}$/);
  });

  it('shutdown and plan approval ids carry the names', () => {
    expect(newShutdownId('alice', 1733140000000)).toBe('shutdown-1733140000000@alice');
    expect(newPlanApprovalId('alice', 'review-squad', 1733140000000)).toBe('plan_approval-1733140000000@alice@review-squad');
    expect(isSafeRequestId(newShutdownId('alice'))).toBe(true);
    expect(isSafeRequestId(newPlanApprovalId('alice', 'review-squad'))).toBe(true);
    expect(newShutdownId('alice')).toMatch(/^shutdown-\d{13}@alice$/);
  });

  it.each(['../../x', '..', 'a..b', 'a/b', '/etc/passwd', 'a\\b', '', '.hidden', 'a\u0000b', 'a b', 'a\nb', 'x'.repeat(202)])(
    'isSafeRequestId rejects %j',
    (id) => {
      expect(isSafeRequestId(id)).toBe(false);
    },
  );

  it('isSafeRequestId accepts Claude Code style ids', () => {
    for (const id of ['perm-1733140002000-a1b2c3', 'toolu_01ABC', 'shutdown-1@w1', 'plan_approval-1@w1@t', 'req.1']) {
      expect(isSafeRequestId(id), id).toBe(true);
    }
  });
});
