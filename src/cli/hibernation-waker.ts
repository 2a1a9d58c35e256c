// The waker (docs/hibernation.md): run by the process leading a team (the console, `swarm run -p`,
// the MCP server) and by `swarm send`. It watches the team's inboxes, config.json and task list,
// and wakes the hibernating members that are due (teammates/hibernation.ts) through the resume
// path — same name, conversation restored, then its inbox delivered once — each on the backend it
// slept on. A wake another process started first ("already being started", "already running") is
// that process's. A failed wake is said once and not tried again for WAKE_RETRY_MS. It also closes
// the exited pane a hibernating member leaves behind (tmux remain-on-exit), and puts idle Claude
// Code teammates to sleep (teammates/claude-sleep.ts: they cannot do it themselves), looking again
// when the next one may come due.
import { backendForMember, paneRefOf, type BackendContext } from '../backends/registry.js';
import type { ResumeResult } from '../teammates/resume.js';
import { coalesced, type Coalesced } from '../storage/coalesce.js';
import { DirWatcher } from '../storage/watch.js';
import { claudeDueToSleep, putClaudeToSleep } from '../teammates/claude-sleep.js';
import { dueToWake } from '../teammates/hibernation.js';
import { resumeTeammates } from '../teammates/resume.js';
import { findMember, readTeam, rosterDigest } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { inspectTranscript } from './resume-members.js';

/** A failed wake is tried again only after this long (and on the next change after it). */
export const WAKE_RETRY_MS = 30_000;
/** A member marked hibernating whose process has not exited yet is looked at again this soon. */
const SETTLE_MS = 200;

export interface WakerOptions {
  team: Team;
  /** How backends are reached from this process (the env, the in-process host). */
  backends: () => BackendContext;
  /** One line for the person: who woke and why, or why a wake failed. */
  say: (line: string) => void;
  readyTimeoutMs?: number;
  /** The watchers' poll fallback (ms). */
  pollMs?: number;
}

/** Wake the members of `o.team` due now; resolves with what each wake did (none due: []). */
export async function wakeDue(
  o: WakerOptions,
  skip: (name: string) => boolean = () => false,
  known?: Set<string>,
): Promise<{ results: ResumeResult[]; settling: boolean }> {
  const ctx = o.backends();
  const due = await dueToWake(o.team, ctx.env, known);
  for (const k of due.asleep) known?.add(k);
  for (const m of due.exitedPanes) await backendForMember(m, o.team, ctx).kill(paneRefOf(m)).catch(() => undefined);
  const config = await readTeam(o.team);
  const results = await Promise.all(
    due.wake
      .filter((w) => !skip(w.name))
      .map(async (w): Promise<ResumeResult[]> => {
        const member = findMember(config, w.name);
        if (member === undefined) return [];
        o.say(`waking ${w.name} (hibernating): ${w.why === 'message' ? 'a message for it' : 'a task is free and nobody awake to claim it'}`);
        const backend = backendForMember(member, o.team, ctx);
        return resumeTeammates({ team: o.team, names: [w.name], backend, env: ctx.env, inspectTranscript, ...(o.readyTimeoutMs ? { readyTimeoutMs: o.readyTimeoutMs } : {}) });
      }),
  );
  return { results: results.flat(), settling: due.settling.length > 0 };
}

export class HibernationWaker {
  private readonly stop = new AbortController();
  private readonly failedAt = new Map<string, number>();
  /** Sleepers already seen asleep (their exited pane dealt with): no pane probes for them until something is due. */
  private readonly known = new Set<string>();
  private readonly run: Coalesced;
  private settleTimer: NodeJS.Timeout | undefined;
  private sleepTimer: NodeJS.Timeout | undefined;
  private loops: Promise<void>[] = [];

  private constructor(
    private readonly o: WakerOptions,
    private readonly watchers: DirWatcher[],
  ) {
    this.run = coalesced(() => this.pass(), { signal: this.stop.signal });
  }

  /** Start watching; a first pass runs at once (members that slept while nobody led). */
  static async start(o: WakerOptions): Promise<HibernationWaker> {
    const pollMs = o.pollMs ?? 1000;
    const p = o.team.paths;
    const watchers = await Promise.all([
      DirWatcher.open(p.inboxes, { match: (b) => b.endsWith('.json'), pollMs }),
      DirWatcher.open(p.dir, { match: (b) => b === 'config.json', pollMs }),
      DirWatcher.open(p.tasks.dir, { match: (b) => b.endsWith('.json'), pollMs }),
    ]);
    const w = new HibernationWaker(o, watchers);
    // config.json: only a change of the roster (the lease holder's renewal every few seconds is none).
    let roster = '';
    const rosterChanged = async (): Promise<boolean> => {
      const next = rosterDigest(await readTeam(o.team));
      if (next === roster) return false;
      roster = next;
      return true;
    };
    w.loops = watchers.map((x, i) => w.follow(x, i === 1 ? rosterChanged : undefined));
    void w.run.trigger().catch(() => undefined);
    return w;
  }

  private async follow(w: DirWatcher, worthIt?: () => Promise<boolean>): Promise<void> {
    for (;;) {
      try {
        await w.changed(this.stop.signal);
      } catch {
        return; // closed
      }
      if (worthIt !== undefined && !(await worthIt().catch(() => true))) continue;
      void this.run.trigger().catch(() => undefined);
    }
  }

  private async pass(): Promise<void> {
    if (this.stop.signal.aborted) return;
    const now = Date.now();
    try {
      const { results, settling } = await wakeDue(this.o, (name) => now - (this.failedAt.get(name) ?? -Infinity) < WAKE_RETRY_MS, this.known);
      for (const r of results) {
        if (r.ok) {
          this.failedAt.delete(r.name);
          this.o.say(`woke ${r.name}: ${r.restored} message${r.restored === 1 ? '' : 's'} of its conversation restored, ${r.unread} unread waiting`);
        } else if (r.error.kind !== 'exists') {
          this.failedAt.set(r.name, now);
          this.o.say(`could not wake ${r.name}: ${r.error.message.split('\n')[0]}`);
        }
      }
      if (settling && !this.stop.signal.aborted) {
        clearTimeout(this.settleTimer);
        this.settleTimer = setTimeout(() => void this.run.trigger().catch(() => undefined), SETTLE_MS);
      }
    } catch (e) {
      this.o.say(`waking hibernating teammates: ${e instanceof Error ? e.message : String(e)}`);
    }
    await this.sleepClaudes().catch((e: unknown) => this.o.say(`putting idle Claude Code teammates to sleep: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Idle Claude Code teammates past their hibernateAfter go to sleep; the timer is set for the next one. */
  private async sleepClaudes(): Promise<void> {
    const ctx = this.o.backends();
    const { due, nextAt } = await claudeDueToSleep(this.o.team, ctx.env);
    for (const s of due) {
      if (this.stop.signal.aborted) return;
      if (await putClaudeToSleep(this.o.team, s, ctx)) {
        this.o.say(`${s.member.name} is hibernating: idle ${Math.round((Date.now() - s.idleSince) / 1000)} s; its Claude Code session is kept, and its next message wakes it`);
      }
    }
    clearTimeout(this.sleepTimer);
    if (nextAt !== undefined && !this.stop.signal.aborted) {
      this.sleepTimer = setTimeout(() => void this.run.trigger().catch(() => undefined), Math.max(100, nextAt - Date.now() + 50));
    }
  }

  async close(): Promise<void> {
    this.stop.abort();
    clearTimeout(this.settleTimer);
    clearTimeout(this.sleepTimer);
    await Promise.all(this.watchers.map((w) => w.close()));
    await Promise.all(this.loops);
    await this.run.idle();
  }
}

/** A waker for as long as `signal` is not aborted (the console's). */
export async function wakeWhileOpen(o: WakerOptions, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const waker = await HibernationWaker.start(o);
  // Aborted while it started: an abort event already past would never come.
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await waker.close();
}
