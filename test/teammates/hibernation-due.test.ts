// Who the waker looks at again (teammates/hibernation.ts dueToWake), in process: a member whose
// status file already says hibernating while its process is still exiting is settling, not asleep
// yet. Were it taken as asleep, the waker would remember it as dealt with and never close the pane
// it leaves behind.
import { describe, expect, it } from 'vitest';
import { updateMember, addMember } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { dueToWake, sleepKey } from '../../src/teammates/hibernation.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { reapChildren, startSleeper, writeStatus } from '../support/team-fixture.js';

let team: Team;
useStandInTeam('swarm-due-', (s) => (team = s.team));

describe('dueToWake', () => {
  it('a member on its way to sleep (status hibernating, process alive) is settling; once its process is gone, asleep', async () => {
    await addMember(team, { name: 'w1' });
    const pid = await startSleeper();
    const hibernatedAt = Date.now();
    await updateMember(team, 'w1', { pid, isActive: false, hibernatedAt });
    await writeStatus(team.root, team.name, 'w1', { pid, state: 'hibernating' });
    expect(await dueToWake(team, {})).toMatchObject({ settling: ['w1'], asleep: [], wake: [] });
    await reapChildren();
    expect(await dueToWake(team, {})).toMatchObject({ settling: [], asleep: [sleepKey({ name: 'w1', hibernatedAt })], wake: [] });
  });
});
