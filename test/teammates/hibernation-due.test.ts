// Who the waker looks at again (teammates/hibernation.ts dueToWake), in process: a member whose
// status file already says hibernating while its process is still exiting is settling, not asleep
// yet; so is one whose process is gone while tmux still shows its pane running (tmux marks it
// exited on SIGCHLD, late on a loaded machine: a `tmux` of the test's own here). Were either
// taken as asleep, the waker would remember it as dealt with and never close the pane it leaves.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { TaskList } from '../../src/tasks/index.js';
import { updateMember, addMember, readTeam } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { dueToWake, sleepKey } from '../../src/teammates/hibernation.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { deadPid, reapChildren, startSleeper, writeStatus } from '../support/team-fixture.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fakeTmux } from '../support/fake-tmux.js';

let team: Team;
useStandInTeam('swarm-due-', (s) => (team = s.team));

describe('dueToWake', () => {
  it('a member on its way to sleep (status hibernating, process alive) is settling; once its process is gone, asleep', async () => {
    await addMember(team, { name: 'w1' });
    const pid = await startSleeper();
    const hibernatedAt = Date.now();
    await updateMember(team, 'w1', { pid, isActive: false, hibernatedAt });
    await writeStatus(team.root, team.name, 'w1', { pid, state: 'hibernating' });
    await new TaskList(team).create({ subject: 'free', description: 'anyone' }, 'team-lead'); // nobody asleep yet to wake for it
    expect(await dueToWake(team, {})).toMatchObject({ settling: ['w1'], asleep: [], wake: [] });
    await reapChildren();
    expect(await dueToWake(team, {})).toMatchObject({ settling: [], asleep: [sleepKey({ name: 'w1', hibernatedAt })], wake: [{ name: 'w1', why: 'task' }] });
  });

  it("a member whose process is gone while tmux still lists its pane as running is settling; once the pane is gone, asleep", async () => {
    // tmux marks a pane exited when it handles the SIGCHLD: until then it lists the pane with the
    // dead pid as running. A `tmux` of the test's own on PATH lists it so, then not at all.
    await addMember(team, { name: 'w1' });
    const pid = await deadPid();
    const hibernatedAt = Date.now();
    await updateMember(team, 'w1', { tmuxPaneId: '%7', backendType: 'tmux', pid, isActive: false, hibernatedAt });
    await writeStatus(team.root, team.name, 'w1', { pid, state: 'hibernating' });
    const tmux = await fakeTmux();
    await tmux.list([`%7 ${pid} 0  @1 cmd swarm-t`]);
    expect(await dueToWake(team, {})).toMatchObject({ settling: ['w1'], asleep: [], exitedPanes: [] });
    await tmux.list([]);
    expect(await dueToWake(team, {})).toMatchObject({ settling: [], asleep: [sleepKey({ name: 'w1', hibernatedAt })], exitedPanes: [] });
    // tmux could not be asked: its pane's state unknown, so looked at again too.
    await tmux.fail();
    expect(await dueToWake(team, {})).toMatchObject({ settling: ['w1'], asleep: [] });
  });

  it('who wakes: a sleeper with mail, for the message; with a free task and nobody awake, the first asleep in the roster, once; an exited pane to close', async () => {
    const tmux = await fakeTmux();
    const asleep = async (name: string, pane: string): Promise<number> => {
      await addMember(team, { name });
      const pid = await deadPid();
      await updateMember(team, name, { tmuxPaneId: pane, backendType: 'tmux', pid, isActive: false, hibernatedAt: Date.now() });
      await writeStatus(team.root, team.name, name, { pid, state: 'hibernating' });
      return pid;
    };
    await updateMember(team, 'team-lead', { pid: process.pid }); // the leader is up: it is no teammate awake to claim a task
    await addMember(team, { name: 'w0' }); // crashed (its process gone, never asleep): neither asleep nor woken
    await updateMember(team, 'w0', { pid: await deadPid(), isActive: true });
    const w1pid = await asleep('w1', '%1');
    await asleep('w2', '%2');
    await addMember(team, { name: 'w3' }); // awake: its process lives
    const w3pid = await startSleeper();
    await updateMember(team, 'w3', { pid: w3pid, isActive: false });
    await writeStatus(team.root, team.name, 'w3', { pid: w3pid, state: 'idle' });
    await tmux.list([`%1 ${w1pid} 1 0 @1 cmd swarm-t`]); // w1's pane shown exited (remain-on-exit); w2's gone
    const [m1, m2] = (await readTeam(team)).members.slice(2);
    const keys = [sleepKey(m1!), sleepKey(m2!)];

    // New sleepers are looked at: asleep, w1's exited pane to close; nothing to wake them.
    expect(await dueToWake(team, {})).toEqual({ wake: [], settling: [], exitedPanes: [m1], asleep: keys });
    // A task anyone may claim, but w3 is awake to claim it: nobody wakes.
    await new TaskList(team).create({ subject: 'free', description: 'anyone' }, 'team-lead');
    expect((await dueToWake(team, {}, new Set(keys))).wake).toEqual([]);
    // w3 gone: the first sleeper in the roster wakes for it, and only that one.
    await reapChildren();
    expect((await dueToWake(team, {}, new Set(keys))).wake).toEqual([{ name: 'w1', why: 'task' }]);
    // Mail wakes its own sleeper; w1 woken for a message is not woken again for the task.
    const mailbox = new Mailbox({ team });
    await mailbox.append('w2', { from: 'team-lead', text: 'hello w2', timestamp: new Date().toISOString() });
    expect((await dueToWake(team, {}, new Set(keys))).wake).toEqual([{ name: 'w2', why: 'message' }, { name: 'w1', why: 'task' }]);
    await mailbox.append('w1', { from: 'team-lead', text: 'hello w1', timestamp: new Date().toISOString() });
    expect((await dueToWake(team, {}, new Set(keys))).wake).toEqual([{ name: 'w1', why: 'message' }, { name: 'w2', why: 'message' }]);
  });

  it('cheap when nothing is due: known sleepers, no mail and no free task are one read of the files, no pane probe', async () => {
    const tmux = await fakeTmux();
    await addMember(team, { name: 'w1' });
    const pid = await deadPid();
    await updateMember(team, 'w1', { tmuxPaneId: '%1', backendType: 'tmux', pid, isActive: false, hibernatedAt: 1000 });
    await writeStatus(team.root, team.name, 'w1', { pid, state: 'hibernating' });
    const nothing = { wake: [], settling: [], exitedPanes: [], asleep: [] };
    const key = sleepKey({ name: 'w1', hibernatedAt: 1000 });
    expect(key).toBe('w1@1000'); // the name as compared (case-insensitively), and when it fell asleep
    expect(sleepKey({ name: 'W1', hibernatedAt: 1000 })).toBe(key);
    expect(sleepKey({ name: 'w1' })).toBe('w1@');
    expect(await dueToWake(team, {}, new Set([key]))).toEqual(nothing);
    expect(await tmux.calls()).toEqual([]);
    // A sleeper not seen before (another hibernatedAt: it woke and slept again) is probed.
    expect(await dueToWake(team, {}, new Set(['w1@999']))).toEqual({ ...nothing, asleep: [key] });
    expect((await tmux.calls()).some((c) => c.includes('list-panes'))).toBe(true);
    // Nobody asleep: nothing, and nothing probed, a free task or not.
    await updateMember(team, 'w1', (m) => ({ ...m, hibernatedAt: undefined }));
    await new TaskList(team).create({ subject: 'free', description: 'anyone' }, 'team-lead');
    const before = (await tmux.calls()).length;
    expect(await dueToWake(team, {})).toEqual(nothing);
    expect((await tmux.calls()).length).toBe(before);
  });

  it('a new sleeper among known ones is looked at; a known one with mail wakes with no task free; an inbox or task list that cannot be read is no mail and no task', async () => {
    await fakeTmux(); // no panes listed: gone
    for (const [name, at] of [['w1', 1000], ['w2', 2000]] as const) {
      await addMember(team, { name });
      const pid = await deadPid();
      await updateMember(team, name, { tmuxPaneId: `%${name}`, backendType: 'tmux', pid, isActive: false, hibernatedAt: at });
      await writeStatus(team.root, team.name, name, { pid, state: 'hibernating' });
    }
    const [k1, k2] = [sleepKey({ name: 'w1', hibernatedAt: 1000 }), sleepKey({ name: 'w2', hibernatedAt: 2000 })];
    expect((await dueToWake(team, {}, new Set([k1]))).asleep).toEqual([k1, k2]);
    await new Mailbox({ team }).append('w2', { from: 'team-lead', text: 'for w2', timestamp: new Date().toISOString() });
    expect((await dueToWake(team, {}, new Set([k1, k2]))).wake).toEqual([{ name: 'w2', why: 'message' }]);
    await fs.mkdir(team.paths.inbox('w1'));
    await fs.rm(team.paths.tasks.dir, { recursive: true, force: true });
    await fs.mkdir(path.dirname(team.paths.tasks.dir), { recursive: true });
    await fs.writeFile(team.paths.tasks.dir, 'not a directory\n');
    expect((await dueToWake(team, {}, new Set([k1, k2]))).wake).toEqual([{ name: 'w2', why: 'message' }]);
    await new Mailbox({ team }).consume('w2');
    expect(await dueToWake(team, {}, new Set([k1, k2]))).toEqual({ wake: [], settling: [], exitedPanes: [], asleep: [] });
  });
});
