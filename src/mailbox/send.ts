// Addressing (docs/protocol.md#inboxes): a recipient must be a member or `team-lead` (no orphan inboxes); `*`
// broadcasts to every member except the sender (case-insensitive), one append per recipient, all
// carrying the same msg_id. The sender must be a member or `team-lead`; its colour is taken from the
// roster.
import { CONTROL_TYPES, parseControl } from '../protocol/control.js';
import { SwarmError } from '../protocol/errors.js';
import { newMsgId } from '../protocol/ids.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { readTeam, requireMember } from '../team/team-store.js';
import type { Mailbox, Spooled } from './mailbox.js';

export interface SendInput {
  to: string;
  from?: string;
  text: string;
  summary?: string;
}

export interface SendResult {
  msg_id: string;
  recipients: string[];
}

export async function sendMessage(mailbox: Mailbox, input: SendInput): Promise<SendResult> {
  if (input.text.length === 0) throw new SwarmError('invalid_input', 'message text is empty; pass the text to send');
  const config = await readTeam(mailbox.opts.team);
  const sender = requireMember(config, input.from ?? LEAD_NAME);
  let recipients: string[];
  if (input.to === '*') {
    recipients = config.members.filter((m) => !sameName(m.name, sender.name)).map((m) => m.name);
    if (recipients.length === 0) {
      throw new SwarmError('invalid_input', `team "${config.name}" has nobody but ${sender.name} to broadcast to; spawn a teammate first`);
    }
  } else {
    const target = requireMember(config, input.to);
    recipients = [target.name];
  }
  const msgId = newMsgId();
  const base = mailbox.makeEntry({
    from: sender.name,
    text: input.text,
    msgId,
    ...(input.summary ? { summary: input.summary } : {}),
    ...(sender.color ? { color: sender.color } : {}),
  });
  // A broadcast's appends go to different inboxes under different locks. Every message is spooled
  // first, so each recipient that is awake can take its copy in its own consume while the sender
  // merges the others, BROADCAST_WIDTH at a time (a team of a hundred is not a hundred appends one
  // after another). Every recipient is tried; any that failed are named in the error, the others
  // have the message.
  const failed: string[] = [];
  let first: unknown;
  const fail = (to: string, e: unknown): void => {
    failed.push(to);
    first ??= e;
  };
  const spooled: Spooled[] = [];
  for (const to of recipients) {
    try {
      spooled.push(mailbox.spool(to, { ...base }));
    } catch (e) {
      fail(to, e);
    }
  }
  for (let i = 0; i < spooled.length; i += BROADCAST_WIDTH) {
    const batch = spooled.slice(i, i + BROADCAST_WIDTH);
    const settled = await Promise.allSettled(batch.map((s) => mailbox.deliver(s)));
    settled.forEach((o, k) => {
      if (o.status === 'rejected') fail(batch[k]!.to, o.reason);
    });
  }
  if (failed.length === 1 && recipients.length === 1) throw first;
  if (failed.length > 0) {
    const why = first instanceof Error ? first.message : String(first);
    throw new SwarmError('io', `the message reached ${recipients.length - failed.length} of ${recipients.length} recipients; not ${failed.join(', ')}: ${why}`, { cause: first });
  }
  return { msg_id: msgId, recipients };
}

/** How many inboxes a broadcast appends to at once. */
export const BROADCAST_WIDTH = 16;

/** What the person runs instead of writing a control frame by hand, by its type. */
const FRAME_INSTEAD: Record<string, (to: string) => string> = {
  shutdown_request: (to) => `swarm shutdown ${to === '*' ? '--all' : to} sends it signed and waits for the answer`,
  permission_response: () => 'answer a request with swarm approve <id> or swarm deny <id> (swarm permissions lists them)',
  plan_approval_response: (to) => `answer a plan with swarm plan ${to === '*' ? '<name>' : to}`,
  task_assignment: (to) => `assign a task with swarm tasks update <id> --owner ${to === '*' ? '<name>' : to}`,
  mode_set_request: () => 'a teammate\'s mode is set when it is spawned (--permission-mode)',
};

/**
 * A person's message that is a control frame (`{"type":"shutdown_request"}` …) would be "sent" and
 * then ignored (it is unsigned) or mistaken for the real thing: refused with one line naming the
 * command that does it. Plain text, and JSON of any other type, pass.
 */
export function refuseHandWrittenFrame(text: string, to: string): void {
  const parsed = parseControl(text);
  const type = parsed.kind === 'control' ? parsed.message.type : parsed.kind === 'unknown' && (CONTROL_TYPES as readonly string[]).includes(parsed.type) ? parsed.type : undefined;
  if (type === undefined) return;
  const instead = FRAME_INSTEAD[type]?.(to) ?? `only a teammate sends ${type}`;
  throw new SwarmError('invalid_input', `not sent: ${type} is a control frame swarm writes itself (signed where it must be; a hand-written one would be ignored); ${instead}`);
}

