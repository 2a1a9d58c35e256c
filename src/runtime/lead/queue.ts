// What the agent lead hears (docs/protocol.md#agent-lead): every entry of team-lead's inbox except the questions that
// stay with the person (permission requests and plan approvals), each worded by notification.ts
// (a teammate's idle notification as a <task-notification> with its usage, so the lead knows who
// is done and at what cost; anything else as <teammate-message …>), and the lines the person types.
// A queue in memory: the console or the headless run is the inbox's one consumer and offers each
// entry here; the agent loop takes everything queued at once, between tool rounds.
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import type { TurnSource } from '../agent-loop.js';
import type { Team } from '../../team/team.js';
import { forLead } from './notification.js';

/** True for the entries the person answers (console question, rules, `swarm approve`), not the model. */
export function staysWithPerson(m: InboxMessage): boolean {
  const parsed = parseControl(m.text);
  return parsed.kind === 'control' && (parsed.message.type === 'permission_request' || parsed.message.type === 'plan_approval_request');
}

type Queued = { text: string } | { entry: InboxMessage };

export class LeadQueue implements TurnSource {
  private blocks: Queued[] = [];
  private wake: (() => void) | undefined;
  private arrivals = 0;
  /** The inbox's consumer has marked entries read that it has not offered yet (mailbox/follow onTaking). */
  private taking = false;
  private untaken: (() => void)[] = [];

  /** `team`: the team whose status files and tasks word a <task-notification> (unset: every entry as a <teammate-message>). */
  constructor(private readonly team?: Team) {}

  /** Offer one inbox entry; true when it went to the lead. Worded when taken (notification.ts). */
  offer(m: InboxMessage): boolean {
    if (staysWithPerson(m)) return false;
    this.push({ entry: m });
    return true;
  }

  /** The consumer's onTaking: true from its consume until every entry it took is offered. */
  setTaking(taking: boolean): void {
    this.taking = taking;
    if (taking) return;
    const waiting = this.untaken;
    this.untaken = [];
    for (const w of waiting) w();
  }

  /** Resolves once the consumer has offered every entry it has marked read (at once when it is not taking). */
  offered(): Promise<void> {
    return this.taking ? new Promise((resolve) => this.untaken.push(resolve)) : Promise.resolve();
  }

  /** A line the person typed (console) or the goal. */
  say(text: string): void {
    this.push({ text });
  }

  /** Entries offered so far (the end check asks whether any arrived since). */
  get count(): number {
    return this.arrivals;
  }

  get size(): number {
    return this.blocks.length;
  }

  private push(item: Queued): void {
    this.blocks.push(item);
    this.arrivals += 1;
    this.wake?.();
    this.wake = undefined;
  }

  async take(): Promise<TextBlockParam[]> {
    const out = this.blocks;
    this.blocks = [];
    return Promise.all(out.map(async (q): Promise<TextBlockParam> => ({ type: 'text', text: 'text' in q ? q.text : await forLead(q.entry, this.team) })));
  }

  changed(signal: AbortSignal): Promise<void> {
    if (this.blocks.length > 0) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason as Error); // a rejection, as promised: never a throw
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      this.wake = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
    });
  }
}
