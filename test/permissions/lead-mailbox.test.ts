// The leader's mailbox (permissions/lead-mailbox.ts): every entry team-lead writes is signed with
// the team's key (made on first use), over the fields Claude Code's envelope covers; what a
// teammate writes is not.
import { describe, expect, it } from 'vitest';
import { loadLeadKey } from '../../src/permissions/keys.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { verifyEntry } from '../../src/permissions/signing.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { useTempRoot } from '../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-lead-mailbox-');

describe('openLeadMailbox', () => {
  it("signs team-lead's entries with the team's key, summary and color included, and no one else's", async () => {
    const { team } = await createTeam(root, { name: 'p' });
    await addMember(team, { name: 'w1', cwd: root });
    const { mailbox, key } = await openLeadMailbox({ team });
    expect((await loadLeadKey(team)).verifyKey).toBe(key.verifyKey); // created on first use

    const full = await mailbox.append('w1', { from: 'team-lead', text: 'stop', summary: 'please stop', color: 'red' });
    const bare = await mailbox.append('w1', { from: 'team-lead', text: 'go on' });
    const worker = await mailbox.append('w1', { from: 'w1', text: 'note to self' });
    expect(verifyEntry(full, key.verifyKey)).toBe(true);
    expect(verifyEntry(bare, key.verifyKey)).toBe(true);
    expect(worker.lead_sig).toBeUndefined();
    for (const change of [{ summary: 'please go on' }, { color: 'blue' }, { text: 'start' }, { msg_id: 'other' }, { from_plugin: 'x' }]) {
      expect(verifyEntry({ ...full, ...change }, key.verifyKey), JSON.stringify(change)).toBe(false);
    }
    expect(verifyEntry({ ...bare, summary: 'added later' }, key.verifyKey)).toBe(false);

    const again = await openLeadMailbox({ team });
    expect(again.key.verifyKey).toBe(key.verifyKey);
  });
});
