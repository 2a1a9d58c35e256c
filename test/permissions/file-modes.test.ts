// File modes of the permission flow (SPEC §3): under umask 0, a request asked and decided in this
// process (worker side and leader side) and one decided with no worker left to act on it leave
// every file under the root 0600 and every directory 0700; an audit log found wider than 0600 (left
// by hand or an older version) is narrowed to 0600 by the next append.
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit } from '../../src/permissions/audit.js';
import { decide } from '../../src/permissions/leader.js';
import { requestPermission, type PermissionEvent } from '../../src/permissions/worker.js';
import { Team } from '../../src/team/team.js';
import { listTree, modeOf } from '../support/fs-tree.js';
import { setupTeam, TEAM, type Harness } from '../support/perm-harness.js';
import { writePendingFor } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let h: Harness;
useTempRoot(async (root) => {
  h = await setupTeam(root);
});

/** Every path under `root` whose mode is not 0600 (files) or 0700 (directories), with its mode. */
async function wrongModes(root: string): Promise<string[]> {
  const wrong: string[] = [];
  for (const rel of await listTree(root)) {
    const want = rel.endsWith('/') ? 0o700 : 0o600;
    const mode = await modeOf(path.join(root, rel));
    if (mode !== want) wrong.push(`${rel} is 0${mode.toString(8)}, expected 0${want.toString(8)}`);
  }
  return wrong;
}

describe('permission files are private', () => {
  it('under umask 0, every file of an asked, decided and acted-on request is 0600 and every directory 0700', async () => {
    const old = process.umask(0);
    try {
      const team = new Team(h.root, TEAM);
      const events: PermissionEvent[] = [];
      const asking = requestPermission({ ...h.base, onEvent: (e) => events.push(e) });
      const requested = await waitFor(() => events.find((e) => e.kind === 'requested'), 10_000, 'the request written');
      const whilePending = await wrongModes(h.root);
      await decide(team, requested.id, 'allow');
      expect(await asking).toMatchObject({ decision: 'allow', id: requested.id });
      // A request nobody acts on keeps its resolved file.
      const orphan = await writePendingFor(h.root, TEAM, 'w2');
      await decide(team, orphan, 'deny', { feedback: 'not now' });
      const tree = await listTree(h.paths.permissions);
      expect(tree, 'the resolved file of the request nobody acted on').toContain(`resolved/${orphan}.json`);
      expect(tree, 'the audit log').toContain('audit.jsonl');
      expect(whilePending, 'modes while the request was pending').toEqual([]);
      expect(await wrongModes(h.root), 'modes after the decisions').toEqual([]);
    } finally {
      process.umask(old);
    }
  });

  it('an audit.jsonl left 0644 is 0600 after the next append', async () => {
    await appendAudit(h.paths, { event: 'rule', id: 'Bash(npm test:*)', at: Date.now(), status: 'added', list: 'allow', by: 'team-lead' });
    await chmod(h.paths.audit, 0o644);
    await appendAudit(h.paths, { event: 'rule', id: 'Bash(ls:*)', at: Date.now(), status: 'added', list: 'allow', by: 'team-lead' });
    expect((await modeOf(h.paths.audit)).toString(8)).toBe('600');
  });
});
