// Which team a command means without --team: SWARM_TEAM, else the team whose tmux session you are
// in, else the only live team; otherwise one line naming the live teams. In-process, on real team
// files; the tmux session and liveness are given.
import { describe, expect, it } from 'vitest';
import { chooseTeam, type TeamChoiceContext } from '../../src/cli/team-choice.js';
import { addMember, createTeam, updateMember, updateTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { swarmInProcess } from '../support/cli.js';
import { deadPid } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-choice-');

/** Teams a, b, c: a's teammate has pid 101 in pane %1, b's pid 202 in pane %2, c's none. */
async function threeTeams(): Promise<void> {
  for (const [name, pid, pane] of [['a', 101, '%1'], ['b', 202, '%2'], ['c', undefined, '']] as const) {
    await createTeam(root, { name });
    await addMember(new Team(root, name), { name: 'w1' });
    await updateMember(new Team(root, name), 'w1', { ...(pid !== undefined ? { pid } : {}), tmuxPaneId: pane });
  }
}

const ctx = (o: Partial<TeamChoiceContext> & { alive?: number[] }): TeamChoiceContext => ({
  root,
  env: o.env ?? {},
  session: o.session ?? (() => Promise.resolve(undefined)),
  isAlive: (pid) => (o.alive ?? []).includes(pid),
});

describe('chooseTeam', () => {
  it('--team, then SWARM_TEAM, win over everything else', async () => {
    await threeTeams();
    expect((await chooseTeam('c', ctx({ env: { SWARM_TEAM: 'a' }, alive: [202] }))).name).toBe('c');
    expect((await chooseTeam(undefined, ctx({ env: { SWARM_TEAM: 'a' }, alive: [202] }))).name).toBe('a');
  });

  it("the team whose tmux session you are in: its swarm-<team> session, or a session holding its teammate's pane", async () => {
    await threeTeams();
    const inSession = (name: string, paneIds: string[]) => () => Promise.resolve({ name, team: name.startsWith('swarm-') ? name.slice(6) : undefined, paneIds });
    expect((await chooseTeam(undefined, ctx({ session: inSession('swarm-c', ['%9']), alive: [101, 202] }))).name).toBe('c');
    expect((await chooseTeam(undefined, ctx({ session: inSession('work', ['%0', '%2']), alive: [101, 202] }))).name).toBe('b');
  });

  it('else the only live team (a teammate or its leader running); two or none: one line saying which', async () => {
    await threeTeams();
    expect((await chooseTeam(undefined, ctx({ alive: [202] }))).name).toBe('b');
    await updateTeam(new Team(root, 'c'), (c) => void (c.leadProcess = { pid: 303, claimedAt: 1, renewedAt: 1 }));
    expect((await chooseTeam(undefined, ctx({ alive: [303] }))).name).toBe('c');
    await expect(chooseTeam(undefined, ctx({ alive: [101, 202] }))).rejects.toThrow(
      'no team given and 2 teams are running (a, b): pass --team <name> or export SWARM_TEAM=<name> (swarm team list shows them all)',
    );
    await expect(chooseTeam(undefined, ctx({ alive: [] }))).rejects.toThrow(/^no team given and no team is running: pass --team/);
  });

  it('the commands use it: no --team, one live team (its leader is this test process)', async () => {
    await threeTeams();
    for (const name of ['a', 'b']) await updateMember(new Team(root, name), 'w1', { pid: await deadPid() }); // 101 and 202 may be real here
    await updateTeam(new Team(root, 'b'), (c) => void (c.leadProcess = { pid: process.pid, claimedAt: 1, renewedAt: 1 }));
    const r = await swarmInProcess(root, ['team', 'show', '--json'], { TMUX: '', TMUX_PANE: '' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }).name).toBe('b');
  });
});
