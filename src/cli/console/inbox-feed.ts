// The console's side of team-lead's inbox (docs/protocol.md#cli): follows it in the mode the console's lease role
// allows — consuming while it holds the lease, observing while it watches (then only what arrived
// since the console opened, or is not taken yet) — and starts over in the other mode when the role
// changes (restart). Each entry goes through the lead's inbox rule (runtime/lead/inbox-rule.ts),
// whose events it acts on: messages and events printed one line each, a verdict highlighted, a
// permission request to the pending list's question, a plan request asked, the agent lead fed, and
// a released teammate reported unless this console asked for that shutdown (its command reports it).
import { followInbox } from '../../mailbox/follow.js';
import type { PlanApprovalRequest } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { LeadInboxRule, type LeadInboxEvent } from '../../runtime/lead/inbox-rule.js';
import type { LeadQueue } from '../../runtime/lead/queue.js';
import type { Team } from '../../team/team.js';
import type { StopContext } from '../../teammates/stop.js';
import { openMailbox } from '../context.js';
import { renderMessage } from '../output/render.js';
import { describeOutcome } from '../output/stop.js';
import { verdictLine } from '../output/verdict.js';
import { eventLine } from './view.js';
import { RepeatFilter } from './repeats.js';

export interface InboxFeedOptions {
  team: Team;
  /** Names (lower-case) this console is shutting down: their outcomes are its commands' to report. */
  stopping: ReadonlySet<string>;
  stopContext: () => StopContext;
  /** True while this console holds the leader lease (takes delivery). */
  holding: () => boolean;
  /** The agent lead's queue, when a lead runs in this console. */
  leadQueue: () => LeadQueue | undefined;
  print: (text: string) => void;
  /** Runs a task the console waits for on exit, its error printed. */
  track: (p: Promise<unknown>) => void;
  /** A permission request arrived: its question comes from the pending list. */
  permissionAsked: () => void;
  planAsked: (from: string, request: PlanApprovalRequest) => void;
}

export class InboxFeed {
  private readonly rule: LeadInboxRule;
  private readonly openedAt = Date.now();
  private roleChange = new AbortController();
  private readonly repeats = new RepeatFilter();

  constructor(private readonly o: InboxFeedOptions) {
    this.rule = new LeadInboxRule({ team: o.team, stopContext: o.stopContext, askedHere: (name) => o.stopping.has(name.toLowerCase()) });
  }

  /** The lease role changed: follow again in the other mode. */
  restart(): void {
    this.roleChange.abort();
  }

  /** Follow until `stop` aborts. */
  async run(stop: AbortSignal): Promise<void> {
    const mailbox = await openMailbox(this.o.team);
    while (!stop.aborted) {
      const change = (this.roleChange = new AbortController());
      const holding = this.o.holding();
      const signal = AbortSignal.any([stop, change.signal]);
      // Watching, the follow starts from the inbox as it is (its watch takes a moment to open): what
      // arrived since this console opened, or is not taken yet, is shown.
      const fresh = (m: InboxMessage): boolean => holding || !m.read || Date.parse(m.timestamp) >= this.openedAt;
      const onTaking = (taking: boolean): void => this.o.leadQueue()?.setTaking(taking);
      for await (const m of followInbox(mailbox, LEAD_NAME, { consume: holding, signal, onTaking })) {
        if (fresh(m)) for (const e of this.rule.take(m, holding)) this.act(e);
      }
    }
  }

  /** A member's message or event, unless it is the same as the last one it printed. */
  private printFrom(from: string, line: string): void {
    if (this.repeats.fresh(from.toLowerCase(), line)) this.o.print(line);
  }

  private act(e: LeadInboxEvent): void {
    const o = this.o;
    switch (e.kind) {
      case 'message':
        return this.printFrom(e.entry.from, renderMessage({ ...e.entry, read: true }));
      case 'event':
        return this.printFrom(e.entry.from, eventLine(e.entry, e.control));
      case 'question':
        // A permission request is shown as the question itself (from the pending list).
        if (e.request.type === 'permission_request') return o.permissionAsked();
        o.print(eventLine(e.entry, e.request));
        return o.planAsked(e.entry.from, e.request);
      case 'verdict':
        return o.print(verdictLine(e.verdict, e.from, true));
      case 'for-lead':
        return void o.leadQueue()?.offer(e.entry);
      case 'released':
        return o.track(e.outcome.then((outcome) => outcome && o.print(describeOutcome(outcome))));
    }
  }
}
