// Who the waker looks at again (teammates/hibernation.ts dueToWake), in process: a member whose
// status file already says hibernating while its process is still exiting is settling, not asleep
// yet; so is one whose process is gone while tmux still shows its pane running (tmux marks it
// exited on SIGCHLD, late on a loaded machine: a `tmux` of the test's own here). Were either
// taken as asleep, the waker would remember it as dealt with and never close the pane it leaves.
import { describe, expect, it } from 'vitest';
import { updateMember, addMember } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { dueToWake, sleepKey } from '../../src/teammates/hibernation.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { deadPid, reapChildren, startSleeper, writeStatus } from '../support/team-fixture.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { tempRoot } from '../support/tmp-root.js';

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

  it("a member whose process is gone while tmux still lists its pane as running is settling; once the pane is gone, asleep", async () => {
    // tmux marks a pane exited when it handles the SIGCHLD: until then it lists the pane with the
    // dead pid as running. A `tmux` of the test's own on PATH lists it so, then not at all.
    await addMember(team, { name: 'w1' });
    const pid = await deadPid();
    const hibernatedAt = Date.now();
    await updateMember(team, 'w1', { tmuxPaneId: '%7', backendType: 'tmux', pid, isActive: false, hibernatedAt });
    await writeStatus(team.root, team.name, 'w1', { pid, state: 'hibernating' });
    const bin = await tempRoot('swarm-fake-tmux-');
    const listing = path.join(bin, 'panes');
    await fs.writeFile(listing, `%7 ${pid} 0  @1 cmd swarm-t\n`);
    await fs.writeFile(path.join(bin, 'tmux'), `#!/bin/sh\ncase "$*" in *-V*) echo "tmux 3.3a";; *list-panes*) cat '${listing}';; esac\n`, { mode: 0o755 });
    const path0 = process.env.PATH;
    process.env.PATH = `${bin}:${path0 ?? ''}`;
    try {
      expect(await dueToWake(team, {})).toMatchObject({ settling: ['w1'], asleep: [], exitedPanes: [] });
      await fs.writeFile(listing, '');
      expect(await dueToWake(team, {})).toMatchObject({ settling: [], asleep: [sleepKey({ name: 'w1', hibernatedAt })], exitedPanes: [] });
    } finally {
      process.env.PATH = path0;
    }
  });
});
