// Stopping a member that has a pid but no pane (a process recorded without a pane: a hand-started
// teammate, or one whose pane was never recorded): kill and shutdown must terminate that process
// and see it gone before the member leaves the roster; a stop that cannot see it gone keeps it.
import { existsSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/backends/process.js';
import { readTeamSpend } from '../../src/team/spend.js';
import { addMember, readTeam, updateMember } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { killTeammate, shutdownTeammate } from '../../src/teammates/stop.js';
import { reapChildren, startSleeper, writeStatus } from '../support/team-fixture.js';
import { useStandInTeam } from '../support/stand-in-panes.js';

const TEAM = 't';
let root: string;
let team: Team;
let pid: number;

useStandInTeam('swarm-stop-', (s) => ({ root, team } = s));
beforeEach(async () => {
  await addMember(team, { name: 'w1' });
  pid = await startSleeper();
  await updateMember(team, 'w1', { pid });
  await writeStatus(root, TEAM, 'w1', { pid, agentId: `w1@${TEAM}`, startedAt: 1, totalTokens: 700, costUsd: 0.7 });
});

async function expectStoppedAndGone(): Promise<void> {
  expect(isProcessAlive(pid), `process ${pid} of w1 still running after the stop`).toBe(false);
  expect((await readTeam(team)).members.map((m) => m.name), 'the roster').toEqual(['team-lead']);
  expect(existsSync(team.paths.status('w1')), 'w1 status file removed').toBe(false);
  expect(await readTeamSpend(team, await readTeam(team)), 'what w1 spent still counts').toEqual({ costUsd: 0.7, tokens: 700, unpriced: [] });
}

describe('a member with a pid and no pane', () => {
  it('kill terminates its process (verified) and then removes it', async () => {
    expect((await readTeam(team)).members.find((m) => m.name === 'w1')).toMatchObject({ tmuxPaneId: '', pid });
    expect(await killTeammate(team, 'w1', { env: {} })).toEqual({ name: 'w1', outcome: 'killed', verified: true });
    await expectStoppedAndGone();
  });

  it('kill that cannot verify the process gone fails with one line and keeps the member and its status file', async () => {
    const asked: number[] = [];
    const refusing = async (p: number): Promise<boolean> => (asked.push(p), false);
    await expect(killTeammate(team, 'w1', { env: {}, terminate: refusing })).rejects.toMatchObject({ kind: 'backend', message: `could not verify that process ${pid} of w1 is gone` });
    expect(asked, 'pids the stop tried to terminate').toEqual([pid]);
    expect((await readTeam(team)).members.map((m) => m.name), 'the roster after a failed stop').toEqual(['team-lead', 'w1']);
    expect(existsSync(team.paths.status('w1')), 'w1 status file kept').toBe(true);
  });

  it('shutdown asks it first: no answer keeps it running and in the roster; --force then terminates it (verified) and removes it', async () => {
    const asked = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 300 });
    expect(asked).toMatchObject({ name: 'w1', outcome: 'timeout', verified: false });
    expect(isProcessAlive(pid), 'w1 still running after an unanswered request').toBe(true);
    expect((await readTeam(team)).members.map((m) => m.name), 'the roster after an unanswered request').toEqual(['team-lead', 'w1']);
    const forced = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 300, force: true });
    expect(forced).toMatchObject({ name: 'w1', outcome: 'killed', verified: true });
    await expectStoppedAndGone();
  });

  it('shutdown of one whose process has exited: already gone, removed', async () => {
    await reapChildren();
    expect(await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 300 })).toEqual({ name: 'w1', outcome: 'already_gone', reason: 'it had already exited', verified: true });
    await expectStoppedAndGone();
  });
});
