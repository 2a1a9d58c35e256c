// The teammate's outgoing messages: SendMessage's plain text (mailbox/send: roster-checked, `*`
// broadcast, the member's colour) and its answer to a shutdown request. A rejection is written to
// team-lead at once; an approval only records the intent — the process then stops its work, and
// `shutdown_approved` is written last, after cleanup (teammate.ts), so the leader that acts on it
// finds a teammate that is already done.
import { encodeControl } from '../protocol/control.js';
import { LEAD_NAME } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { sendMessage } from '../mailbox/send.js';
import type { ShutdownCoordinator } from './shutdown.js';
import type { Messaging } from './tools/types.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';

export interface TeamMessagingDeps {
  mailbox: Mailbox;
  name: string;
  color?: string;
  shutdown: ShutdownCoordinator;
  view: PaneView;
  transcript: Transcript;
  now?: () => number;
}

export class TeamMessaging implements Messaging {
  constructor(private readonly d: TeamMessagingDeps) {}

  get self(): string {
    return this.d.name;
  }

  async send(to: string, text: string, summary?: string): Promise<string[]> {
    const r = await sendMessage(this.d.mailbox, { to, from: this.d.name, text, ...(summary ? { summary } : {}) });
    this.d.view.messageOut(to, summary ? `${summary}: ${text}` : text);
    this.d.transcript.append({ kind: 'message_out', to, recipients: r.recipients, msgId: r.msg_id, type: 'text', text });
    return r.recipients;
  }

  async answerShutdown(requestId: string, approve: boolean, reason?: string): Promise<string> {
    const request = this.d.shutdown.answer(requestId, approve);
    if (approve) {
      this.d.transcript.append({ kind: 'message_out', to: LEAD_NAME, type: 'shutdown_response', approve: true, requestId });
      this.d.view.notice(`shutdown approved (${request.requestId}): stopping`);
      return 'Shutdown approved. Your process is stopping now: do not call any more tools.';
    }
    const why = reason?.trim() ?? '';
    const text = encodeControl({
      type: 'shutdown_rejected',
      requestId: request.requestId,
      from: this.d.name,
      reason: why,
      timestamp: new Date((this.d.now ?? Date.now)()).toISOString(),
    });
    await this.d.mailbox.append(LEAD_NAME, { from: this.d.name, text, ...(this.d.color ? { color: this.d.color } : {}) });
    this.d.view.messageOut(LEAD_NAME, `shutdown rejected: ${why}`);
    this.d.transcript.append({ kind: 'message_out', to: LEAD_NAME, type: 'shutdown_rejected', requestId, reason: why });
    return `Shutdown rejected; team-lead was told: ${why}`;
  }
}
