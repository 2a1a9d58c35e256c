// How a teammate ends, in one place. Order matters: stop the work first (Bash groups killed and
// verified, watcher closed), then say so (status `exiting`, isActive false), and only then tell the
// leader (`shutdown_approved` / a failed `idle_notification`), so a leader that reacts to the frame by
// closing the pane finds a teammate that is already done. Every step runs even if one before failed.
//   approved → exit 0, shutdown_approved          grace  → exit 0, shutdown_approved with a note
//   signal   → exit 0 (SIGTERM/SIGINT/host stop)   failed → exit 1, idle_notification "failed"
//   budget   → exit 0, shutdown_approved with a note (asked to stop while held at the team's budget:
//              its model cannot be asked, so the runtime approves; runtime/budget-gate.ts)
//   hibernate → exit 0, no frame (the leader had its idle notification): status `hibernating`, and
//              last of all config.json `hibernatedAt` with isActive false (hibernation.ts), so whoever
//              wakes it finds its transcript and status already written
import prettyMs from 'pretty-ms';
import { encodeControl, type ShutdownRequest } from '../protocol/control.js';
import { LEAD_NAME } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { readTeam, findMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { Presence } from './presence.js';
import type { StatusReporter } from './status.js';
import type { ProcessGroups } from './tools/process-groups.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';

export type ExitReason =
  | { kind: 'approved'; request: ShutdownRequest }
  | { kind: 'grace'; request: ShutdownRequest; graceMs: number }
  | { kind: 'budget'; request: ShutdownRequest }
  | { kind: 'signal'; signal: string }
  | { kind: 'hibernate'; idleMs: number }
  | { kind: 'failed'; why: string };

export interface ExitDeps {
  team: Team;
  name: string;
  color?: string;
  mailbox: Mailbox;
  presence: Presence;
  status: StatusReporter;
  processes: ProcessGroups;
  view: PaneView;
  transcript: Transcript;
  /** Stop watching and waiting (inbox monitor, timers). */
  closeWatchers: () => Promise<void>;
  now?: () => number;
}

export function exitCode(reason: ExitReason): number {
  return reason.kind === 'failed' ? 1 : 0;
}

export async function finishTeammate(reason: ExitReason, d: ExitDeps): Promise<number> {
  const problems: string[] = [];
  const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      problems.push(`${what}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  if (reason.kind === 'grace') d.view.warn(`shutdown: no answer from the model within ${Math.round(reason.graceMs / 1000)}s; exiting anyway`);
  if (reason.kind === 'failed') d.view.error(`giving up: ${reason.why}`);
  if (reason.kind === 'signal') d.view.notice(`stopping (${reason.signal})`);
  if (reason.kind === 'budget') d.view.notice("shutdown requested while waiting at the team's budget: exiting without a model step");
  if (reason.kind === 'hibernate') d.view.notice(`hibernating: idle ${prettyMs(reason.idleMs, { compact: true })} with nothing to do; its conversation is kept and its next message wakes it`);

  await step('closing watchers', d.closeWatchers);
  await step('stopping Bash processes', async () => {
    const lingering = await d.processes.killAll();
    if (lingering.length > 0) d.view.warn(`process groups still alive after SIGKILL: ${lingering.join(', ')}`);
  });
  const hibernating = reason.kind === 'hibernate';
  await step('status', async () => {
    d.status.setState(hibernating ? 'hibernating' : 'exiting');
    await d.status.flush();
  });
  if (!hibernating) await step('config.json', () => d.presence.leaving());

  const timestamp = new Date((d.now ?? Date.now)()).toISOString();
  if (reason.kind === 'approved' || reason.kind === 'grace' || reason.kind === 'budget') {
    await step('shutdown_approved', async () => {
      const member = findMember(await readTeam(d.team), d.name);
      const note =
        reason.kind === 'grace'
          ? { graceExpired: true, note: `the model did not answer within ${Math.round(reason.graceMs / 1000)}s; exited anyway` }
          : reason.kind === 'budget'
            ? { note: "waiting at the team's budget, so the model could not be asked; exited without a model step" }
            : {};
      const text = encodeControl({
        type: 'shutdown_approved',
        requestId: reason.request.requestId,
        from: d.name,
        timestamp,
        ...(member?.tmuxPaneId ? { paneId: member.tmuxPaneId } : {}),
        ...(member?.backendType ? { backendType: member.backendType } : {}),
        ...note,
      });
      await d.mailbox.append(LEAD_NAME, { from: d.name, text, ...(d.color ? { color: d.color } : {}) });
      d.transcript.append({ kind: 'message_out', to: LEAD_NAME, type: 'shutdown_approved', requestId: reason.request.requestId, ...note });
    });
  } else if (reason.kind === 'failed') {
    await step('failure notification', () => d.presence.failed(reason.why));
  }

  for (const p of problems) d.view.warn(`while exiting: ${p}`);
  const code = exitCode(reason);
  d.transcript.append({ kind: 'exit', code, reason: reason.kind, ...(reason.kind === 'failed' ? { why: reason.why } : {}), problems });
  if (!hibernating) d.view.notice(`exited (${reason.kind}, code ${code})`);
  await d.status.stop(hibernating ? 'hibernating' : 'exiting').catch(() => undefined);
  await d.transcript.flush();
  if (hibernating) {
    try {
      await d.presence.hibernating();
    } catch (e) {
      // Not marked: it reads as stopped, and `swarm resume` brings it back the same way.
      d.view.warn(`while exiting: config.json: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return code;
}
