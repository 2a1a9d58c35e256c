// Hibernation of a Claude Code teammate (docs/hibernation.md#claude-code-teammates): swarm has no
// hold inside Claude Code, so whoever leads puts it to sleep from outside, and wakes it with
// `claude --resume <its session>` (resume.ts, the member's `sessionId`). A `--runtime claude`
// member on this machine with a session and a hibernateAfter is due to sleep when
//   - its last `idle_notification` (available) in team-lead's inbox is no older than its session
//     transcript's last write (IDLE_SLACK_MS: Claude Code may write a line just after it): its turn
//     ended and nothing happened since — a teammate in a long tool call wrote no idle notification;
//     and it is newer than its process: one from before a wake is its earlier life's;
//   - that was longer ago than its hibernateAfter;
//   - nothing is unread in its inbox, it has no permission request pending and no task in progress.
// Putting it to sleep, under the spawn lock (no wake or resume meanwhile): the same checks again,
// with its transcript unchanged since they were made; then, holding its inbox's lock and
// team-lead's (Claude Code writes an inbox in place under its lock: never killed mid-write), its
// inbox still read to the end, `hibernatedAt` and isActive false in config.json, and SIGKILL to its
// process, verified gone, and its exited pane closed. SIGKILL, not SIGTERM, SIGHUP or a closed
// pane: 2.1.112 ended that way rewrites config.json on its way out and now and then leaves it empty;
// its transcript is appended line by line, so a kill loses none of it.
import { promises as fs } from 'node:fs';
import { backendForMember, paneRefOf, type BackendContext } from '../backends/registry.js';
import { isProcessAlive, pollUntil } from '../backends/process.js';
import { Mailbox } from '../mailbox/mailbox.js';
import type { Member } from '../protocol/config.js';
import { parseControl } from '../protocol/control.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { SwarmError } from '../protocol/errors.js';
import { withFileLock } from '../storage/lock.js';
import { processStartedAt } from '../storage/pid.js';
import { claudeTranscript } from '../team/paths.js';
import { findMember, readTeam, updateMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { Env } from './command-line.js';
import { withSpawnLock } from './recipe.js';
import { collectStatus } from './status-report.js';

/** A transcript line written this long after the idle notification still counts as the same idle spell. */
export const IDLE_SLACK_MS = 5_000;

export interface ClaudeSleeper {
  member: Member;
  /** When it went idle (epoch ms). */
  idleSince: number;
  /** Its session transcript's mtime when it was found due (it must not move before the kill). */
  transcriptMtime: number;
}

export interface ClaudeSleepCheck {
  due: ClaudeSleeper[];
  /** The earliest time another member may come due (epoch ms); undefined: nobody to watch. */
  nextAt: number | undefined;
}

/** The `--runtime claude` members this process could put to sleep, with their hibernateAfter. */
function candidates(config: Awaited<ReturnType<typeof readTeam>>): { member: Member; afterMs: number }[] {
  return config.members.flatMap((m) => {
    const afterMs = m.hibernateAfterMs ?? config.swarm?.hibernateAfterMs;
    const eligible = !sameName(m.name, LEAD_NAME) && m.runtime === 'claude' && m.sessionId !== undefined && m.host === undefined && m.hibernatedAt === undefined && m.pid !== undefined;
    return eligible && afterMs !== undefined ? [{ member: m, afterMs }] : [];
  });
}

/** Each member's last `idle_notification` (available) to team-lead, epoch ms. */
async function lastIdle(team: Team): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  for (const m of await new Mailbox({ team }).read(LEAD_NAME)) {
    const c = parseControl(m.text);
    if (c.kind !== 'control' || c.message.type !== 'idle_notification' || c.message.idleReason === 'failed') continue;
    const at = Date.parse(m.timestamp);
    const key = m.from.toLowerCase();
    if (Number.isFinite(at) && at > (last.get(key) ?? 0)) last.set(key, at);
  }
  return last;
}

async function mtimeOf(file: string): Promise<number | undefined> {
  return (await fs.stat(file).catch(() => undefined))?.mtimeMs;
}

/** Who is due to sleep now, and when to look again. One read of config.json when nobody could be. */
export async function claudeDueToSleep(team: Team, env: Env, now = Date.now()): Promise<ClaudeSleepCheck> {
  const config = await readTeam(team);
  const list = candidates(config);
  if (list.length === 0) return { due: [], nextAt: undefined };
  const idle = await lastIdle(team);
  const { report } = await collectStatus(team, { env });
  const due: ClaudeSleeper[] = [];
  let nextAt: number | undefined;
  for (const { member, afterMs } of list) {
    const row = report.members.find((r) => sameName(r.name, member.name));
    const idleAt = idle.get(member.name.toLowerCase());
    const written = await mtimeOf(claudeTranscript(team.root, member.cwd, member.sessionId!));
    if (row === undefined || row.alive !== true || idleAt === undefined || written === undefined) continue;
    // An idle notification from before its process started is an earlier life's: woken since, it
    // has not gone idle yet (the message that woke it may be read and not yet in its transcript).
    const started = processStartedAt(member.pid!);
    if (started !== undefined && idleAt < started) continue;
    if (written > idleAt + IDLE_SLACK_MS) continue; // working since its last idle notification
    if ((row.unread ?? 0) > 0 || row.pendingPermissions > 0 || row.task !== null) continue;
    const idleSince = Math.max(idleAt, written);
    if (now - idleSince >= afterMs) due.push({ member, idleSince, transcriptMtime: written });
    else nextAt = Math.min(nextAt ?? Infinity, idleSince + afterMs);
  }
  return { due, nextAt };
}

/**
 * Put `s` to sleep (see the header); true when it sleeps now, false when it turned out busy or
 * changed meanwhile (nothing done). Throws SwarmError when its process would not die.
 */
export async function putClaudeToSleep(team: Team, s: ClaudeSleeper, ctx: BackendContext): Promise<boolean> {
  return withSpawnLock(team, undefined, async () => {
    const member = findMember(await readTeam(team), s.member.name);
    if (member === undefined || member.hibernatedAt !== undefined || member.pid !== s.member.pid || member.tmuxPaneId !== s.member.tmuxPaneId) return false;
    const again = (await claudeDueToSleep(team, ctx.env)).due.find((d) => sameName(d.member.name, member.name));
    if (again === undefined || again.transcriptMtime !== s.transcriptMtime) return false;
    // Killed while it holds neither its own inbox's lock nor team-lead's: Claude Code rewrites an
    // inbox in place under that lock, and a kill in the middle would leave it cut short.
    const mailbox = new Mailbox({ team });
    const killed = await withFileLock(team.paths.inbox(member.name), () =>
      withFileLock(team.paths.inbox(LEAD_NAME), async () => {
        if ((await mailbox.unread(member.name)).length > 0) return false; // a message just came: it stays up
        await updateMember(team, member.name, { hibernatedAt: Date.now(), isActive: false });
        const pid = member.pid!;
        if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
        if (!(await pollUntil(() => !isProcessAlive(pid), 5_000))) {
          await updateMember(team, member.name, { hibernatedAt: undefined });
          throw new SwarmError('backend', `${member.name}'s process ${pid} did not die after SIGKILL; it stays awake`);
        }
        return true;
      }),
    );
    if (killed && member.tmuxPaneId !== '') await backendForMember(member, team, ctx).kill(paneRefOf(member)).catch(() => undefined);
    return killed;
  });
}
