// When a Claude Code teammate is put to sleep (teammates/claude-sleep.ts), in process with real
// files and a real process standing in for Claude Code (`sleep`): due once its last idle
// notification is older than the team's hibernateAfter and its session transcript has not moved
// since (a few seconds of slack); never while it has mail, a question pending, a task in progress,
// no live process, or lives on another machine. The kill itself happens only if the same holds again
// under the spawn lock with the transcript unchanged and nothing unread: then hibernatedAt is
// recorded and its process is gone. The real Claude Code's sleep and wake: claude-hibernate.test.ts.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { encodeControl } from '../../src/protocol/control.js';
import type { Member } from '../../src/protocol/config.js';
import { isProcessAlive } from '../../src/storage/pid.js';
import { TaskList } from '../../src/tasks/index.js';
import { claudeTranscript } from '../../src/team/paths.js';
import { addMember, readTeam, setHibernateAfter, updateMember, updateTeam } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { claudeDueToSleep, IDLE_SLACK_MS, putClaudeToSleep } from '../../src/teammates/claude-sleep.js';
import { TmuxServer } from '../../src/backends/tmux/commands.js';
import { fakeTmux } from '../support/fake-tmux.js';
import { SSH_SKIP, SSH_TEST_HOST, startSshd } from '../support/sshd.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { afterThisTest } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { startSleeper, writePendingFor } from '../support/team-fixture.js';

const AFTER = 60_000;
// Ahead of every stand-in process's start: an idle notification older than its process is an earlier life's.
const T0 = Math.ceil((Date.now() + 60_000) / 1000) * 1000; // whole seconds: file times keep them exactly
let team: Team;
let cwd: string;
let sessions = 0;
useStandInTeam('swarm-csleep-', (s) => ({ team, cwd } = s));

/** A live claude member `name` whose last idle notification was at `idleAt` and transcript written at `writtenAt`. */
async function claudeMember(name: string, o: { idleAt: number; writtenAt: number; extra?: Partial<Member>; reason?: 'available' | 'failed'; pid?: number }): Promise<{ pid: number; transcript: string }> {
  const sessionId = `0b7e4a3c-6f1d-4b2a-9c8e-1d2f3a4b5c${String(++sessions).padStart(2, '0')}`;
  const pid = o.pid ?? (await startSleeper());
  await addMember(team, { name, cwd, runtime: 'claude' });
  await updateMember(team, name, { pid, sessionId, isActive: false, ...o.extra });
  const transcript = claudeTranscript(team.root, cwd, sessionId);
  await fs.mkdir(path.dirname(transcript), { recursive: true });
  await fs.writeFile(transcript, '{"type":"assistant"}\n');
  await fs.utimes(transcript, o.writtenAt / 1000, o.writtenAt / 1000);
  const stamp = new Date(o.idleAt).toISOString();
  await new Mailbox({ team }).append('team-lead', { from: name, text: encodeControl({ type: 'idle_notification', from: name, timestamp: stamp, idleReason: o.reason ?? 'available' }), timestamp: stamp });
  return { pid, transcript };
}

const names = (c: { due: { member: Member }[] }): string[] => c.due.map((d) => d.member.name);

describe('claudeDueToSleep', () => {
  it('due once idle past hibernateAfter with its transcript still (a line within the slack counts as the same idle spell); else when to look again', async () => {
    await setHibernateAfter(team, AFTER);
    await claudeMember('c1', { idleAt: T0, writtenAt: T0 + IDLE_SLACK_MS });
    await claudeMember('c2', { idleAt: T0, writtenAt: T0 + 1000, extra: { hibernateAfterMs: 2 * AFTER } }); // its own, longer
    expect(await claudeDueToSleep(team, {}, T0 + IDLE_SLACK_MS + AFTER - 1)).toEqual({ due: [], nextAt: T0 + IDLE_SLACK_MS + AFTER });
    const due = await claudeDueToSleep(team, {}, T0 + IDLE_SLACK_MS + AFTER);
    expect(names(due)).toEqual(['c1']);
    expect(due.due[0]).toMatchObject({ idleSince: T0 + IDLE_SLACK_MS, transcriptMtime: T0 + IDLE_SLACK_MS });
    expect(due.nextAt).toBe(T0 + 1000 + 2 * AFTER);
    expect(names(await claudeDueToSleep(team, {}, T0 + 1000 + 2 * AFTER))).toEqual(['c1', 'c2']);
  });

  it('never: working since (its transcript written after the slack), a failed turn, mail, a question, a task, no process, another machine, no hibernateAfter', async () => {
    const late = T0 + 10 * AFTER;
    const members: Record<string, Parameters<typeof claudeMember>[1]> = {
      working: { idleAt: T0, writtenAt: T0 + IDLE_SLACK_MS + 1 },
      failed: { idleAt: T0, writtenAt: T0, reason: 'failed' },
      mail: { idleAt: T0, writtenAt: T0 },
      asking: { idleAt: T0, writtenAt: T0 },
      tasked: { idleAt: T0, writtenAt: T0 },
      remote: { idleAt: T0, writtenAt: T0, extra: { host: 'box' } },
      ok: { idleAt: T0, writtenAt: T0 },
    };
    for (const [name, o] of Object.entries(members)) await claudeMember(name, o);
    expect(await claudeDueToSleep(team, {}, late)).toEqual({ due: [], nextAt: undefined }); // no hibernateAfter: nobody
    await setHibernateAfter(team, AFTER);
    await new Mailbox({ team }).append('mail', { from: 'w9', text: 'for you' });
    await writePendingFor(team.root, team.name, 'asking');
    const tasks = new TaskList(team);
    await tasks.create({ subject: 's', description: 'd' }, 'team-lead');
    await tasks.claim('1', 'tasked');
    expect(names(await claudeDueToSleep(team, {}, late))).toEqual(['ok']);
    // Its process gone: not due (nothing to put to sleep).
    const ok = (await readTeam(team)).members.find((m) => m.name === 'ok')!;
    process.kill(ok.pid!, 'SIGKILL');
    await expect.poll(() => isProcessAlive(ok.pid!)).toBe(false);
    expect(names(await claudeDueToSleep(team, {}, late))).toEqual([]);
  });
});

describe.skipIf(SSH_SKIP !== undefined)('claudeDueToSleep: a member on another machine', () => {
  it('is never due, though its pane there is alive and its pid names a live process here: the kill would be a local process.kill of some other process', async () => {
    const sshd = await startSshd();
    sshd.closeMastersUnder(team.root);
    const socket = tmuxForThisTest();
    // Its pane on the "host" (this machine over the test's sshd, its tmux on the private server).
    const server = new TmuxServer({ socket });
    await server.run(['new-session', '-d', '-s', 'swarm-remote', 'sleep 600']);
    const [paneId, panePid] = (await server.run(['list-panes', '-t', 'swarm-remote', '-F', '#{pane_id} #{pane_pid}'])).trim().split(' ');
    await setHibernateAfter(team, 1);
    // Its record's pid is its pane's process there, and here (one machine plays both) a live process too.
    const idle = Math.ceil((Date.now() + 200) / 1000) * 1000;
    const { pid } = await claudeMember('far', { idleAt: idle, writtenAt: idle, pid: Number(panePid), extra: { host: SSH_TEST_HOST, backendType: 'ssh', tmuxPaneId: paneId! } });
    await new Promise((r) => setTimeout(r, Math.max(0, idle + 10 - Date.now())));
    const env = { SWARM_SSH_COMMAND: sshd.sshCommand, SWARM_TMUX_SOCKET: socket };
    expect(await claudeDueToSleep(team, env)).toEqual({ due: [], nextAt: undefined });
    // The same member on this machine is due: only where it runs kept it awake.
    await updateMember(team, 'far', { host: undefined, backendType: undefined, tmuxPaneId: '' });
    expect((await claudeDueToSleep(team, env)).due.map((d) => d.member.pid)).toEqual([pid]);
  });
});

describe('claudeDueToSleep: what counts as its idle time', () => {
  it('an idle notification from before its process started is an earlier life\'s: a teammate just woken is not due until it goes idle again', async () => {
    await setHibernateAfter(team, 1);
    const before = Date.now() - 60_000; // it went idle, then slept; the message that woke it is read, not yet in its transcript
    const { pid } = await claudeMember('c1', { idleAt: before, writtenAt: before });
    expect(await claudeDueToSleep(team, {})).toEqual({ due: [], nextAt: undefined });
    const again = Date.now() + 50;
    await new Mailbox({ team }).append('team-lead', { from: 'c1', text: encodeControl({ type: 'idle_notification', from: 'c1', timestamp: new Date(again).toISOString(), idleReason: 'available' }), timestamp: new Date(again).toISOString() });
    await new Promise((r) => setTimeout(r, 100));
    expect((await claudeDueToSleep(team, {})).due.map((d) => d.member.pid)).toEqual([pid]);
  });

  it('its latest idle notification, whatever the order in the inbox; not its other messages; no idle notification or no transcript: never due, and no time to look again', async () => {
    await setHibernateAfter(team, AFTER);
    await claudeMember('c1', { idleAt: T0 + 20_000, writtenAt: T0 + 20_000 });
    const lead = new Mailbox({ team });
    const stamp = (t: number): string => new Date(t).toISOString();
    // An earlier idle notification after the later one, a plain text and another control message later still.
    await lead.append('team-lead', { from: 'c1', text: encodeControl({ type: 'idle_notification', from: 'c1', timestamp: stamp(T0), idleReason: 'available' }), timestamp: stamp(T0) });
    await lead.append('team-lead', { from: 'c1', text: 'done with the report', timestamp: stamp(T0 + 40_000) });
    await lead.append('team-lead', { from: 'c1', text: encodeControl({ type: 'permission_request', request_id: 'r1', agent_id: 'c1@t', tool_name: 'Bash', tool_use_id: '', description: '', input: {}, permission_suggestions: [] }), timestamp: stamp(T0 + 40_000) });
    await lead.append('team-lead', { from: 'c1', text: encodeControl({ type: 'idle_notification', from: 'c1', timestamp: 'not a time', idleReason: 'available' }), timestamp: 'not a time' });
    expect(await claudeDueToSleep(team, {}, T0 + 20_000 + AFTER - 1)).toEqual({ due: [], nextAt: T0 + 20_000 + AFTER });
    // No idle notification at all, or no transcript: nothing to go by.
    const c2 = await claudeMember('c2', { idleAt: T0, writtenAt: T0 });
    await fs.rm(c2.transcript);
    const c3 = claudeTranscript(team.root, cwd, '0b7e4a3c-6f1d-4b2a-9c8e-1d2f3a4b5c99');
    await addMember(team, { name: 'c3', cwd, runtime: 'claude' });
    await updateMember(team, 'c3', { pid: await startSleeper(), sessionId: '0b7e4a3c-6f1d-4b2a-9c8e-1d2f3a4b5c99', isActive: false });
    await fs.writeFile(c3, '{}\n');
    await fs.utimes(c3, T0 / 1000, T0 / 1000);
    await updateTeam(team, (c) => void c.members.splice(1, 1)); // c1 gone: only c2 and c3 are left to look at
    expect(await claudeDueToSleep(team, {}, T0 + 10 * AFTER)).toEqual({ due: [], nextAt: undefined });
  });
});

describe('putClaudeToSleep', () => {
  it('kills it and records hibernatedAt when the same holds again; not if a message came, or its transcript moved', async () => {
    await setHibernateAfter(team, 1);
    // c1 ignores SIGTERM (2.1.112 rewrites config.json on its way out when it gets one): only SIGKILL ends it. Its pane is closed after.
    const stubborn = spawn('sh', ['-c', "trap '' TERM; exec sleep 600"], { stdio: 'ignore' });
    afterThisTest(async () => void stubborn.kill('SIGKILL'));
    await once(stubborn, 'spawn');
    const tmux = await fakeTmux();
    await tmux.list([`%1 ${stubborn.pid} 0  @1 cmd swarm-t`]);
    const idle = Math.ceil((Date.now() + 200) / 1000) * 1000; // after every process here started (whole seconds: file times keep them exactly)
    const c1 = await claudeMember('c1', { idleAt: idle, writtenAt: idle, pid: stubborn.pid!, extra: { tmuxPaneId: '%1', backendType: 'tmux' } });
    const c2 = await claudeMember('c2', { idleAt: idle, writtenAt: idle });
    const c3 = await claudeMember('c3', { idleAt: idle, writtenAt: idle });
    await new Promise((r) => setTimeout(r, Math.max(0, idle + 10 - Date.now())));
    const { due } = await claudeDueToSleep(team, {});
    expect(names({ due })).toEqual(['c1', 'c2', 'c3']);
    const [s1, s2, s3] = due;
    await new Mailbox({ team }).append('c2', { from: 'w9', text: 'just came' });
    await fs.utimes(c3.transcript, (idle + 2000) / 1000, (idle + 2000) / 1000); // it wrote a line meanwhile
    const ctx = { env: {} };
    expect(await putClaudeToSleep(team, s2!, ctx)).toBe(false);
    expect(await putClaudeToSleep(team, s3!, ctx)).toBe(false);
    expect(await putClaudeToSleep(team, s1!, ctx)).toBe(true);
    expect(isProcessAlive(c1.pid)).toBe(false);
    expect(stubborn.signalCode ?? (await once(stubborn, 'exit'))[1]).toBe('SIGKILL');
    expect((await tmux.calls()).filter((c) => c.includes('kill-pane'))).toEqual([expect.stringMatching(/kill-pane -t %1$/)]);
    expect([isProcessAlive(c2.pid), isProcessAlive(c3.pid)]).toEqual([true, true]);
    const roster = (await readTeam(team)).members;
    expect(roster.find((m) => m.name === 'c1')).toMatchObject({ isActive: false, hibernatedAt: expect.any(Number) });
    expect(roster.filter((m) => m.hibernatedAt !== undefined).map((m) => m.name)).toEqual(['c1']);
    // Asleep already, or its roster entry moved to another process: nothing done.
    expect(await putClaudeToSleep(team, s1!, ctx)).toBe(false);
    await updateMember(team, 'c3', { pid: await startSleeper() });
    await fs.utimes(c3.transcript, idle / 1000, idle / 1000);
    expect(await putClaudeToSleep(team, s3!, ctx)).toBe(false);
  });
});
