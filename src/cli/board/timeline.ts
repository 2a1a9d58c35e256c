// The board's message timeline (docs/board.md): every member's inbox (team-lead's too) merged by
// time, the newest MAX_TIMELINE kept. A control frame is shown in words — the same words the
// console prints (output/render.ts describeControl) — never as JSON; plain text stays plain text
// (the page puts it in the DOM as text, never as HTML). Reads only; an inbox that cannot be read is
// a warning, the others still shown.
import type { Mailbox } from '../../mailbox/mailbox.js';
import { parseControl } from '../../protocol/control.js';
import { messageKey, type InboxMessage } from '../../protocol/message.js';
import { oneLine } from '../../protocol/text.js';
import { describeControl } from '../output/render.js';

/** The most entries the board sends (and the page keeps). */
export const MAX_TIMELINE = 1000;

export interface TimelineEntry {
  /** Stable across reads (msg_id, else the entry's own fields): the page adds only what it has not drawn. */
  key: string;
  at: number;
  from: string;
  to: string;
  color: string | null;
  /** `message`: a member's text; `event`: a control frame in words; `unknown`: JSON of a type nobody knows. */
  kind: 'message' | 'event' | 'unknown';
  summary: string | null;
  text: string;
  read: boolean;
}

/** One inbox entry of `to`'s inbox as the timeline shows it. */
export function timelineEntry(m: InboxMessage, to: string): TimelineEntry {
  const at = Date.parse(m.timestamp);
  const parsed = parseControl(m.text);
  const base = { key: `${to}/${messageKey(m)}`, at: Number.isFinite(at) ? at : 0, from: m.from, to, color: m.color ?? null, summary: m.summary ?? null, read: m.read };
  if (parsed.kind === 'control') return { ...base, kind: 'event', text: describeControl(parsed.message, m.from) };
  if (parsed.kind === 'unknown') return { ...base, kind: 'unknown', text: `[${parsed.type}] ${oneLine(m.text)}` };
  return { ...base, kind: 'message', text: m.text };
}

/** The inboxes of `names`, merged oldest first, the newest `limit` kept. */
export async function readTimeline(mailbox: Mailbox, names: readonly string[], warnings: string[], limit = MAX_TIMELINE): Promise<TimelineEntry[]> {
  const all: TimelineEntry[] = [];
  for (const name of names) {
    try {
      for (const m of await mailbox.read(name)) all.push(timelineEntry(m, name));
    } catch (e) {
      warnings.push(`inbox of ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  all.sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return all.slice(-limit);
}
