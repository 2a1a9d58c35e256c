// When a Claude Code teammate is put to sleep (teammates/claude-sleep.ts), in process with real
// files and a real process standing in for Claude Code (`sleep`): due once its last idle
// notification is older than the team's hibernateAfter and its session transcript has not moved
// since (a few seconds of slack); never while it has mail, a question pending, a task in progress,
// no live process, or lives on another machine. The kill itself happens only if the same holds again
// under the spawn lock with the transcript unchanged and nothing unread: then hibernatedAt is
// recorded and its process is gone. The real Claude Code's sleep and wake: claude-hibernate.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { encodeControl } from '../../src/protocol/control.js';
import type { Member } from '../../src/protocol/config.js';
import { isProcessAlive } from '../../src/storage/pid.js';
import { TaskList } from '../../src/tasks/index.js';
import { claudeTranscript } from '../../src/team/paths.js';
import { addMember, readTeam, setHibernateAfter, updateMember } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { claudeDueToSleep, IDLE_SLACK_MS, putClaudeToSleep } from '../../src/teammates/claude-sleep.js';
import { useStandInTeam } from '../support/stand-in-panes.js';
import { startSleeper, writePendingFor } from '../support/team-fixture.js';

const AFTER = 60_000;
const T0 = Date.parse('2026-12-06T10:00:00Z');
let team: Team;
let cwd: string;
let sessions = 0;
useStandInTeam('swarm-csleep-', (s) => ({ team, cwd } = s));

/** A live claude member `name` whose last idle notification was at `idleAt` and transcript written at `writtenAt`. */
async function claudeMember(name: string, o: { idleAt: number; writtenAt: number; extra?: Partial<Member>; reason?: 'available' | 'failed' }): Promise<{ pid: number; transcript: string }> {
  const sessionId = `0b7e4a3c-6f1d-4b2a-9c8e-1d2f3a4b5c${String(++sessions).padStart(2, '0')}`;
  const pid = await startSleeper();
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

describe('putClaudeToSleep', () => {
  it('kills it and records hibernatedAt when the same holds again; not if a message came, or its transcript moved', async () => {
    await setHibernateAfter(team, 1);
    const c1 = await claudeMember('c1', { idleAt: T0, writtenAt: T0 });
    const c2 = await claudeMember('c2', { idleAt: T0, writtenAt: T0 });
    const c3 = await claudeMember('c3', { idleAt: T0, writtenAt: T0 });
    const { due } = await claudeDueToSleep(team, {});
    expect(names({ due })).toEqual(['c1', 'c2', 'c3']);
    const [s1, s2, s3] = due;
    await new Mailbox({ team }).append('c2', { from: 'w9', text: 'just came' });
    await fs.utimes(c3.transcript, (T0 + 2000) / 1000, (T0 + 2000) / 1000); // it wrote a line meanwhile
    const ctx = { env: {} };
    expect(await putClaudeToSleep(team, s2!, ctx)).toBe(false);
    expect(await putClaudeToSleep(team, s3!, ctx)).toBe(false);
    expect(await putClaudeToSleep(team, s1!, ctx)).toBe(true);
    expect(isProcessAlive(c1.pid)).toBe(false);
    expect([isProcessAlive(c2.pid), isProcessAlive(c3.pid)]).toEqual([true, true]);
    const roster = (await readTeam(team)).members;
    expect(roster.find((m) => m.name === 'c1')).toMatchObject({ isActive: false, hibernatedAt: expect.any(Number) });
    expect(roster.filter((m) => m.hibernatedAt !== undefined).map((m) => m.name)).toEqual(['c1']);
    // Asleep already, or its roster entry moved to another process: nothing done.
    expect(await putClaudeToSleep(team, s1!, ctx)).toBe(false);
    await updateMember(team, 'c3', { pid: await startSleeper() });
    await fs.utimes(c3.transcript, T0 / 1000, T0 / 1000);
    expect(await putClaudeToSleep(team, s3!, ctx)).toBe(false);
  });
});
