// A member that leaves gives its unfinished tasks back (SPEC §8): `swarm kill`, `swarm shutdown`
// (real fake teammates in tmux on a private socket, the command line in-process through main(argv,
// io)) and a crash
// found by `swarm status` each put the member's unfinished tasks back to pending without owner,
// leave its completed ones alone, and send team-lead ONE message from `system` listing them;
// nothing owned, nothing sent. Run `npm run build` first.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { TaskList } from '../../src/tasks/index.js';
import { addMember, updateMember } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { releaseNotice } from '../../src/teammates/release.js';
import { swarmInProcess } from '../support/cli.js';
import { deadPid } from '../support/team-fixture.js';
import { useFakeTeam } from '../support/fake-team.js';

const TEAM = 'rel';

let root: string;
let env: Record<string, string>;
const pids = new Set<number>();

useFakeTeam(TEAM, pids, (t) => ({ root, env } = t));

const team = (): Team => new Team(root, TEAM);
const run = (args: string[]) => swarmInProcess(root, args, env);

async function spawn(name: string): Promise<void> {
  const r = await run(['spawn', name, '--prompt', `hi ${name}`, '--backend', 'tmux', '--json']);
  expect(r.exitCode, r.stderr).toBe(0);
  pids.add((JSON.parse(r.stdout) as { pid: number }).pid);
}

/** Messages to team-lead from `system`. */
async function notices(): Promise<string[]> {
  return (await new Mailbox({ team: team() }).read('team-lead')).filter((m) => m.from === 'system').map((m) => m.text);
}

describe('release on leave', () => {
  it('kill and shutdown give the member\'s unfinished tasks back, with one notice to team-lead each', async () => {
    await spawn('alice');
    await spawn('bob');
    await spawn('carol');
    const tasks = new TaskList(team());
    await tasks.create({ subject: 'A one', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'alice');
    await tasks.create({ subject: 'A two', description: 'x', owner: 'alice' }, 'team-lead');
    await tasks.create({ subject: 'A done', description: 'x' }, 'team-lead');
    await tasks.claim('3', 'alice');
    await tasks.update('3', { status: 'completed' }, 'alice');
    await tasks.create({ subject: 'B one', description: 'x' }, 'team-lead');
    await tasks.claim('4', 'bob');

    const killed = await run(['kill', 'alice']);
    expect(killed.exitCode, killed.stderr).toBe(0);
    for (const id of ['1', '2']) {
      const t = await tasks.get(id);
      expect(t.status).toBe('pending');
      expect(t.owner).toBeUndefined();
    }
    expect(await tasks.get('3')).toMatchObject({ status: 'completed', owner: 'alice' });
    expect(await tasks.get('4')).toMatchObject({ status: 'in_progress', owner: 'bob' });
    expect(await notices()).toEqual([
      'alice was terminated. 2 task(s) were unassigned: #1 "A one", #2 "A two". Use TaskList to check availability and TaskUpdate with owner to reassign them to idle teammates.',
    ]);

    const stopped = await run(['shutdown', 'bob', '--json']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual([{ name: 'bob', outcome: 'approved', verified: true }]);
    expect(await tasks.get('4')).toMatchObject({ status: 'pending' });
    expect((await tasks.get('4')).owner).toBeUndefined();
    const all = await notices();
    expect(all).toHaveLength(2);
    expect(all[1]).toBe(releaseNotice('bob', 'shut down', [{ id: '4', subject: 'B one' }]));
    expect(all[1]).toMatch(/^bob has shut down\. 1 task\(s\) were unassigned: #4 "B one"\. /);

    // carol owned nothing: leaving sends no notice.
    expect((await run(['kill', 'carol'])).exitCode).toBe(0);
    expect(await notices()).toHaveLength(2);
  }, 60_000);

  it('a crash found by swarm status releases nothing: the stopped member keeps its task for swarm resume', async () => {
    const gone = await deadPid();
    await addMember(team(), { name: 'ghost', cwd: root });
    await updateMember(team(), 'ghost', { pid: gone, backendType: 'in-process', tmuxPaneId: 'in-process', isActive: true });
    const tasks = new TaskList(team());
    await tasks.create({ subject: 'Haunt', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'ghost');

    const first = await swarmInProcess(root, ['status', '--team', TEAM, '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as { tasks: unknown; members: { name: string; state: string; task: unknown }[] };
    expect(report.members.find((m) => m.name === 'ghost')).toMatchObject({ state: 'stopped', task: { id: '1', subject: 'Haunt' }, resumeCommand: `swarm resume ghost --team ${TEAM}` });
    expect(report.tasks).toEqual({ done: 0, total: 1 });
    expect(await tasks.get('1')).toMatchObject({ status: 'in_progress', owner: 'ghost' });
    expect(await notices()).toEqual([]);
  });
});
