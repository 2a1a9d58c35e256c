// Addressing (docs/protocol.md#inboxes): a recipient must be a member or `team-lead` (no orphan inboxes); `*`
// broadcasts to every member except the sender (case-insensitive), one append per recipient, all
// carrying the same msg_id. The sender must be a member or `team-lead`; its colour is taken from the
// roster.
import { SwarmError } from '../protocol/errors.js';
import { newMsgId } from '../protocol/ids.js';
import { LEAD_NAME, sameName } from '../protocol/names.js';
import { readTeam, requireMember } from '../team/team-store.js';
import type { Mailbox } from './mailbox.js';

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
  for (const r of recipients) await mailbox.append(r, { ...base });
  return { msg_id: msgId, recipients };
}
