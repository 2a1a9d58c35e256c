// Taking delivery of the teammate's inbox, between tool rounds only (the agent loop calls `take()`
// after a round and while idle, never during one). Each new entry is consumed once, in order
// (mailbox.consume), logged, shown in the pane, and turned into text for the model's next user turn:
//   plain text / other control frames → <teammate-message ...> (marked unverified if it claims to be
//     the leader's and is not);
//   verified shutdown_request → shown to the model (it must answer) and handed to the coordinator;
//   verified plan_approval_response → applied if it answers an outstanding plan (a note for the model);
//   verified mode_set_request → the mode changes (pane + log; the model is not woken for it);
//   unverified leader controls → shown to the model marked unverified, never obeyed.
// `permission_response` frames are left in the inbox for permissions/worker.ts, except late
// duplicates for requests this process already finished (consumed and logged).
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { parseControl, type ShutdownRequest } from '../protocol/control.js';
import { parsePermissionMode, type PermissionMode } from '../protocol/config.js';
import type { InboxMessage } from '../protocol/message.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { appendAudit } from '../permissions/audit.js';
import { classify, wrapForModel, type Incoming, type LeadTrust } from './incoming.js';
import type { PlanApproval } from './plan-approval.js';
import type { ShutdownCoordinator } from './shutdown.js';
import type { Transcript } from './transcript.js';
import { oneLine } from '../protocol/text.js';
import type { PaneView } from './view.js';

export interface InboxDeliveryDeps {
  mailbox: Mailbox;
  name: string;
  trust: LeadTrust;
  /** Permission request ids this process has finished with. */
  finishedPermissions: ReadonlySet<string>;
  shutdown: ShutdownCoordinator;
  plan: PlanApproval;
  setMode: (mode: PermissionMode) => void;
  view: PaneView;
  transcript: Transcript;
}

export class InboxDelivery {
  constructor(private readonly d: InboxDeliveryDeps) {}

  private accept = (m: InboxMessage): boolean => {
    const parsed = parseControl(m.text);
    if (parsed.kind !== 'control' || parsed.message.type !== 'permission_response') return true;
    return this.d.finishedPermissions.has(parsed.message.request_id);
  };

  /** Consume what is new; the text blocks for the model (empty when nothing needs its attention). */
  async take(): Promise<TextBlockParam[]> {
    // A lock-free look first: most rounds find nothing new, and then take no lock at all. Spooled
    // messages count as new: the consume merges them in its one write.
    const look = await this.d.mailbox.peek(this.d.name);
    if (!look.unsettled && !look.entries.some((m) => !m.read && this.accept(m))) return [];
    const entries = await this.d.mailbox.consume(this.d.name, this.accept);
    const blocks: TextBlockParam[] = [];
    for (const entry of entries) {
      const text = this.handle(classify(entry, this.d.trust));
      if (text !== undefined) blocks.push({ type: 'text', text });
    }
    return blocks;
  }

  /** Look (without consuming) for signed shutdown requests, so their grace period starts at once. */
  async peekShutdown(): Promise<ShutdownRequest[]> {
    const found: ShutdownRequest[] = [];
    for (const entry of (await this.d.mailbox.peek(this.d.name)).entries) {
      if (entry.read) continue;
      const c = classify(entry, this.d.trust);
      if (c.kind === 'lead_control' && !c.unverified && c.message.type === 'shutdown_request' && this.d.shutdown.noteSigned(c.message)) {
        found.push(c.message);
      }
    }
    return found;
  }

  private log(entry: InboxMessage, kind: string, extra: Record<string, unknown> = {}): void {
    this.d.transcript.append({ kind: 'message_in', from: entry.from, msgId: entry.msg_id, type: kind, text: entry.text, ...extra });
  }

  private handle(c: Incoming): string | undefined {
    const { entry } = c;
    const { view } = this.d;
    switch (c.kind) {
      case 'text':
        this.log(entry, 'text', c.unverified ? { unverified: c.unverified } : {});
        view.messageIn(entry.from, entry.summary ? `${entry.summary}: ${entry.text}` : entry.text, c.unverified ? 'unverified' : undefined);
        return wrapForModel(entry, c.unverified);
      case 'unknown':
        this.log(entry, c.type);
        view.messageIn(entry.from, `[${c.type}] ${entry.text}`);
        return wrapForModel(entry);
      case 'control': {
        const m = c.message;
        if (m.type === 'permission_response') {
          this.log(entry, m.type, { late: true, requestId: m.request_id });
          return undefined;
        }
        this.log(entry, m.type);
        // A task given to this member reads as words in the pane; other frames as their JSON.
        if (m.type === 'task_assignment') view.messageIn(entry.from, `assigned task #${m.taskId}: ${m.subject}`);
        else view.messageIn(entry.from, `[${m.type}] ${oneLine(entry.text, 120)}`);
        return wrapForModel(entry);
      }
      case 'lead_control':
        return this.leadControl(c);
    }
  }

  private leadControl(c: Extract<Incoming, { kind: 'lead_control' }>): string | undefined {
    const { entry, message: m } = c;
    const { view } = this.d;
    if (c.unverified) {
      this.log(entry, m.type, { unverified: c.unverified });
      view.messageIn(entry.from, `[${m.type}] ignored`, `unverified: ${c.unverified}`);
      return wrapForModel(entry, c.unverified);
    }
    if (entry.msg_id) this.d.trust.acted.add(entry.msg_id);
    this.log(entry, m.type, { verified: true });
    switch (m.type) {
      case 'shutdown_request':
        this.d.shutdown.noteSigned(m);
        this.d.shutdown.markDelivered(m.requestId);
        view.messageIn(entry.from, `asks you to shut down${m.reason ? `: ${m.reason}` : ''} [${m.requestId}]`);
        return wrapForModel(entry);
      case 'plan_approval_response': {
        const out = this.d.plan.applyLate(m);
        view.messageIn(entry.from, `plan ${m.approved ? 'approved' : 'rejected'}${m.feedback ? `: ${m.feedback}` : ''}`);
        if (!out) return wrapForModel(entry);
        return `<teammate-message teammate_id="team-lead">\n${out.content}\n</teammate-message>`;
      }
      case 'mode_set_request': {
        let mode: PermissionMode;
        try {
          mode = parsePermissionMode(m.mode, 'mode_set_request mode');
        } catch (e) {
          view.warn(`team-lead's ${(e as Error).message}; ignored`);
          return undefined;
        }
        this.d.setMode(mode);
        view.notice(`team-lead set the permission mode to ${mode}`);
        appendAudit(this.d.mailbox.paths, { event: 'mode', id: entry.msg_id ?? '', at: Date.now(), worker: this.d.name, mode, by: entry.from }).catch((e: unknown) =>
          view.warn(`audit log: ${(e as Error).message}`),
        );
        return undefined;
      }
    }
  }
}
