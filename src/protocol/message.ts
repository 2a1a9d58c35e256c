// Inbox entries (docs/protocol.md#inboxes). An inbox file is a JSON array of these. Two shapes are read:
// Claude Code 2.1.112 writes {from, text, timestamp, read, color?, summary?}; newer writers add
// {type: "message", msgV: 1, msg_id, lead_sig?}. Unknown fields are kept on rewrite.
import { createHash } from 'node:crypto';
import * as z from 'zod';

export const InboxMessageSchema = z.looseObject({
  from: z.string(),
  text: z.string(),
  timestamp: z.string(),
  read: z.boolean().default(false),
  color: z.string().optional(),
  summary: z.string().optional(),
  type: z.string().optional(),
  msgV: z.number().optional(),
  msg_id: z.string().optional(),
  lead_sig: z.string().optional(),
  from_plugin: z.string().optional(),
});
export type InboxMessage = z.infer<typeof InboxMessageSchema>;

export const InboxSchema = z.array(InboxMessageSchema);

/** The largest message text swarm writes, in bytes (UTF-8): 1 MiB keeps every inbox rewrite cheap. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

/** The one-line refusal of a text over MAX_MESSAGE_BYTES (`over`: only a lower bound is known, e.g. from a stream). */
export function messageTooLarge(bytes: number, over = false): string {
  return `message is ${over ? 'more than ' : ''}${bytes} bytes; the limit is ${MAX_MESSAGE_BYTES} (1 MiB): put large content in a file and send its path`;
}
export type Inbox = z.infer<typeof InboxSchema>;

/**
 * The identity used to deliver a message once: its msg_id, or for the old shape (no msg_id) a hash
 * of sender, timestamp and text.
 */
export function messageKey(m: Pick<InboxMessage, 'msg_id' | 'from' | 'timestamp' | 'text'>): string {
  if (m.msg_id) return m.msg_id;
  return `h:${createHash('sha256').update(`${m.from}\u0000${m.timestamp}\u0000${m.text}`).digest('hex').slice(0, 32)}`;
}
