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
//
// No entry is lost to a crash between the consume and the model's turn (docs/recovery.md): under
// the inbox lock, before the inbox says the entries are read, an `inbox_taking {msgKeys}` line is
// written to the transcript (write-ahead); the `user` line that carries their text names them in
// `delivered` (`inbox_delivered` for an entry that wakes no turn). A resumed teammate gets back the
// entries taken and never delivered (restore.ts finds their keys) and delivers them first.
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { parseControl, type ShutdownRequest } from '../protocol/control.js';
import { parsePermissionMode, type PermissionMode } from '../protocol/config.js';
import { messageKey, type InboxMessage } from '../protocol/message.js';
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
  /** Entries an earlier run of this teammate took and never delivered (a resume: undeliveredEntries). */
  carried?: readonly InboxMessage[];
}

export class InboxDelivery {
  private carried: readonly InboxMessage[];
  /** Keys of the entries whose text has been handed out and is not yet in a written user turn. */
  private unsettled: string[] = [];

  constructor(private readonly d: InboxDeliveryDeps) {
    this.carried = d.carried ?? [];
  }

  private accept = (m: InboxMessage): boolean => {
    const parsed = parseControl(m.text);
    if (parsed.kind !== 'control' || parsed.message.type !== 'permission_response') return true;
    return this.d.finishedPermissions.has(parsed.message.request_id);
  };

  /** Consume what is new; the text blocks for the model (empty when nothing needs its attention). */
  async take(): Promise<TextBlockParam[]> {
    const blocks = this.redeliver();
    // A lock-free look first: most rounds find nothing new, and then take no lock at all. Spooled
    // messages count as new: the consume merges them in its one write.
    const look = await this.d.mailbox.peek(this.d.name);
    if (!look.unsettled && !look.entries.some((m) => !m.read && this.accept(m))) return blocks;
    const entries = await this.d.mailbox.consume(this.d.name, this.accept, async (taken) => {
      this.d.transcript.append({ kind: 'inbox_taking', msgKeys: taken.map(messageKey) });
      await this.d.transcript.flush();
    });
    return [...blocks, ...this.deliver(entries, this.d.trust)];
  }

  /**
   * The keys of the entries handed out by take() since the last call: the agent loop names them
   * in the user line that carries their text (its `delivered`), so a resume does not give them again.
   */
  settle(): string[] {
    const keys = this.unsettled;
    this.unsettled = [];
    return keys;
  }

  /** The carried entries, once: their leader controls were acted on before the crash, and are not replays. */
  private redeliver(): TextBlockParam[] {
    if (this.carried.length === 0) return [];
    const entries = this.carried;
    this.carried = [];
    const ids = new Set(entries.flatMap((m) => (m.msg_id ? [m.msg_id] : [])));
    const { acted } = this.d.trust;
    const trust: LeadTrust = { ...this.d.trust, acted: { has: (id) => !ids.has(id) && acted.has(id), add: (id) => acted.add(id) } };
    this.d.view.notice(`delivering ${entries.length} message${entries.length === 1 ? '' : 's'} taken before the restart and never read`);
    return this.deliver(entries, trust);
  }

  /** Handle `entries` in order; the blocks for the model. Those that wake no turn are recorded as delivered at once. */
  private deliver(entries: readonly InboxMessage[], trust: LeadTrust): TextBlockParam[] {
    const blocks: TextBlockParam[] = [];
    const quiet: string[] = [];
    for (const entry of entries) {
      const text = this.handle(classify(entry, trust));
      const key = messageKey(entry);
      if (text === undefined) quiet.push(key);
      else {
        blocks.push({ type: 'text', text });
        this.unsettled.push(key);
      }
    }
    if (quiet.length > 0) this.d.transcript.append({ kind: 'inbox_delivered', msgKeys: quiet });
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

/**
 * The entries of `name`'s inbox (its archive too, when some are not in the inbox) that a resume
 * must deliver again: read, with a key in `keys` (restore.ts: taken, never delivered), in inbox
 * order. An entry still unread is left to the next consume; one no longer anywhere (a respawn
 * cleared the inbox) is gone. `onError` hears of an archive that cannot be read.
 */
export async function undeliveredEntries(mailbox: Mailbox, name: string, keys: readonly string[], onError: (message: string) => void): Promise<InboxMessage[]> {
  if (keys.length === 0) return [];
  const wanted = new Set(keys);
  const pick = (entries: readonly InboxMessage[]): InboxMessage[] => entries.filter((m) => m.read === true && wanted.delete(messageKey(m)));
  const inbox = await mailbox.read(name);
  for (const m of inbox) if (!m.read) wanted.delete(messageKey(m)); // the next consume delivers it
  const fromInbox = pick(inbox);
  if (wanted.size === 0) return fromInbox;
  let archived: InboxMessage[] = [];
  try {
    archived = pick(await mailbox.archived(name));
  } catch (e) {
    onError(`${(e as Error).message}; messages taken before the restart that were archived are not delivered again`);
  }
  return [...archived, ...fromInbox];
}
