// The lead's inbox rule (docs/protocol.md#cli, docs/protocol.md#agent-lead): what the process leading a team does with each entry of
// team-lead's inbox, whatever its front end (the console, `swarm run -p`, an MCP server). One entry
// becomes typed events, in the order a front end shows them; the front end words them (cli/output/)
// and acts on them:
//   message   a teammate's plain message, to show;
//   event     any other control frame (idle, failed, a shutdown answer, …), to show as one line;
//   question  a permission or plan request: it stays with the person, never the lead (queue.ts
//             staysWithPerson); `id` is the request's, so a front end asks it once;
//   verdict   a verifier's `VERDICT:` line, once per verdict (verdicts.ts);
//   for-lead  the entry for the agent lead (its queue wraps it as <teammate-message …>);
//   released  a `shutdown_approved`: the teammate is released — process gone, pane closed, off the
//             roster, verified (teammates/stop.ts handleShutdownApproved). `outcome` settles to
//             what to report, or undefined when there is nothing new (it was already gone, or
//             this process asked for that shutdown and its asking command reports it); it rejects
//             when the release failed: a front end must catch it.
// Only the consumer (the lease holder: team/lead-lease.ts) feeds the lead and releases teammates; a
// watcher only shows. Each entry is taken once (by message key): a watcher that takes over is
// delivered again what it has shown, and does nothing with it.
import type { Verdict } from '../../protocol/agent-type.js';
import { parseControl, type ControlMessage, type PermissionRequestFrame, type PlanApprovalRequest } from '../../protocol/control.js';
import { messageKey, type InboxMessage } from '../../protocol/message.js';
import type { Team } from '../../team/team.js';
import { handleShutdownApproved, type StopContext, type StopOutcome } from '../../teammates/stop.js';
import { staysWithPerson } from './queue.js';
import { VerdictTracker } from './verdicts.js';

export type LeadInboxEvent =
  | { kind: 'message'; entry: InboxMessage }
  | { kind: 'event'; entry: InboxMessage; control: ControlMessage }
  | { kind: 'question'; entry: InboxMessage; request: PermissionRequestFrame | PlanApprovalRequest; id: string }
  | { kind: 'verdict'; from: string; verdict: Verdict }
  | { kind: 'for-lead'; entry: InboxMessage }
  | { kind: 'released'; name: string; outcome: Promise<StopOutcome | undefined> };

export interface LeadInboxOptions {
  team: Team;
  /** How a release reaches the teammate's backend (read when a release starts). */
  stopContext: () => StopContext;
  /** True when this process asked `name` to shut down: the asking command reports that outcome. */
  askedHere?: (name: string) => boolean;
}

export class LeadInboxRule {
  private readonly verdicts = new VerdictTracker();
  private readonly taken = new Set<string>();

  constructor(private readonly o: LeadInboxOptions) {}

  /** The events of one entry; `consuming` when this process takes delivery (holds the lease). */
  take(entry: InboxMessage, consuming: boolean): LeadInboxEvent[] {
    const key = messageKey(entry);
    if (this.taken.has(key)) return [];
    this.taken.add(key);
    const events: LeadInboxEvent[] = [shown(entry)];
    const verdict = this.verdicts.next(entry);
    if (verdict !== undefined) events.push({ kind: 'verdict', from: entry.from, verdict });
    if (!consuming) return events;
    if (!staysWithPerson(entry)) events.push({ kind: 'for-lead', entry });
    const parsed = parseControl(entry.text);
    if (parsed.kind === 'control' && parsed.message.type === 'shutdown_approved') {
      const frame = parsed.message;
      const asked = this.o.askedHere?.(frame.from) === true;
      const outcome = handleShutdownApproved(this.o.team, frame, this.o.stopContext()).then((o) => (o.outcome === 'already_gone' || asked ? undefined : o));
      events.push({ kind: 'released', name: frame.from, outcome });
    }
    return events;
  }
}

/** How an entry is shown: a plain message, a question for the person, or an event line. */
function shown(entry: InboxMessage): LeadInboxEvent {
  const parsed = parseControl(entry.text);
  if (parsed.kind !== 'control') return { kind: 'message', entry };
  const c = parsed.message;
  if (c.type === 'permission_request') return { kind: 'question', entry, request: c, id: c.request_id };
  if (c.type === 'plan_approval_request') return { kind: 'question', entry, request: c, id: c.requestId };
  return { kind: 'event', entry, control: c };
}
