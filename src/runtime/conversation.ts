// The conversation as the model saw it, rebuilt from a member's transcript (docs/protocol.md#transcripts-and-resume): the `user`
// and `assistant` lines in order, with each `compaction` line applied where it stands (its summary
// replaces the first `replaced` messages: `compacted`, the one rule the agent loop uses too).
//
// A `user` line right after a `user` line extends that message (`appendMessage`): a resumed
// teammate (docs/protocol.md#transcripts-and-resume) adds its next user blocks to the unanswered user message the crash left, as
// the agent loop does in memory (the API needs alternating roles), so both count messages alike.
//
// Lines are read by storage/jsonl.ts's rule, each whole line zod-checked. A torn last line (no
// newline) is what a crash mid-append leaves: it is skipped and said in `skipped` (`torn` says where
// it starts, for restore.ts to cut it off). A bad whole line is corruption: the rebuild stops before
// it and says where in `corrupt`, so the caller decides (it never guesses what the line held). A
// missing file is an empty conversation.
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { parseJsonl, readJsonl, type JsonlText, type LineCheck } from '../storage/jsonl.js';
import { CONVERSATION_KINDS, ConversationEntrySchema, TranscriptLineSchema, type ConversationEntry } from '../protocol/conversation.js';

/** How the first user message after a compaction begins (a person reading the log knows it too). */
export const SUMMARY_HEADER = '[swarm] The earlier part of this conversation was compacted to save context. Its summary:';

/** The message that stands for the compacted turns. */
export function summaryMessage(summary: string): MessageParam {
  return { role: 'user', content: [{ type: 'text', text: `${SUMMARY_HEADER}\n<conversation-summary>\n${summary}\n</conversation-summary>` }] };
}

/** Add `message` to `messages`: merged into the last one when both have the same role (see the header). */
export function appendMessage(messages: MessageParam[], message: MessageParam): void {
  const last = messages.at(-1);
  if (last === undefined || last.role !== message.role) {
    messages.push(message);
    return;
  }
  const content = [...blocksOf(last), ...blocksOf(message)];
  messages[messages.length - 1] = last.role === 'user' ? { role: 'user', content } : { role: 'assistant', content };
}

function blocksOf(m: MessageParam): ContentBlockParam[] {
  return typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
}

/** The conversation after a compaction: the summary, then every message from index `replaced` on. */
export function compacted(messages: readonly MessageParam[], summary: string, replaced: number): MessageParam[] {
  return [summaryMessage(summary), ...messages.slice(replaced)];
}

export interface RebuiltConversation {
  messages: MessageParam[];
  /** A torn last line that was skipped (a crash mid-write): its line number, and where it starts (`offset`, bytes). */
  skipped?: string;
  torn?: { offset: number; chars: number };
  /** A bad whole line: the rebuild stopped before it. `messages` is what came before. */
  corrupt?: string;
}

/** A line checked: a conversation entry, or a line for people (`null`). */
const check: LineCheck<ConversationEntry | null> = (json) => {
  const base = TranscriptLineSchema.safeParse(json);
  if (!base.success) return { ok: false, problem: 'not a transcript entry (no kind)' };
  if (!CONVERSATION_KINDS.has(base.data.kind)) return { ok: true, value: null };
  const full = ConversationEntrySchema.safeParse(json);
  if (!full.success) return { ok: false, problem: `a bad ${base.data.kind} entry: ${full.error.issues[0]?.message ?? 'invalid'}` };
  return { ok: true, value: full.data };
};

/** Rebuild the message list from transcript text (the contents of logs/<name>.jsonl). */
export function conversationFromText(text: string, file = 'transcript'): RebuiltConversation {
  return conversationFromLines(parseJsonl(text, check), file);
}

function conversationFromLines(read: JsonlText<ConversationEntry | null>, file: string): RebuiltConversation {
  const torn = read.torn === undefined ? {} : { skipped: `${file} line ${read.torn.line}: not a whole line (a write cut short; skipped)`, torn: { offset: read.torn.offset, chars: read.torn.text.length } };
  let messages: MessageParam[] = [];
  for (const l of read.lines) {
    if ('blank' in l) continue;
    const where = `${file} line ${l.line}`;
    if ('problem' in l) return { messages, corrupt: `${where}: ${l.problem.startsWith('not JSON') ? 'not JSON' : l.problem}; the conversation is rebuilt up to the line before it` };
    const e = l.value;
    if (e === null) continue;
    if (e.kind === 'compaction') {
      if (e.replaced > messages.length) {
        return { messages, corrupt: `${where}: a compaction replaces ${e.replaced} messages but only ${messages.length} came before it; the conversation is rebuilt up to the line before it` };
      }
      messages = compacted(messages, e.summary, e.replaced);
    } else {
      // The blocks passed the protocol's block schemas; fields they do not name are kept as sent.
      appendMessage(messages, { role: e.kind, content: e.content as ContentBlockParam[] });
    }
  }
  return { messages, ...torn };
}

/** Rebuild the message list from the transcript file (missing: empty). For resume and tests. */
export async function readConversation(file: string): Promise<RebuiltConversation> {
  return conversationFromLines(await readJsonl(file, check), file);
}
