// The conversation entries of a member's transcript (logs/<name>.jsonl, docs/protocol.md#transcripts-and-resume): what the model
// saw, whole, so the message list can be rebuilt. `user` and `assistant` carry the content blocks of
// one message exactly as sent (tool results in full); `compaction` says the first `replaced`
// messages were replaced by `summary` (conversation.ts in runtime/ applies it). Every other kind of
// transcript line is for people and is only required to be a JSON object with a `kind`.
import * as z from 'zod';

const TextBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.looseObject({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const ToolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
const ThinkingBlock = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const RedactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

export const UserEntrySchema = z.looseObject({
  kind: z.literal('user'),
  content: z.array(z.discriminatedUnion('type', [TextBlock, ToolResultBlock])).min(1),
});
export const AssistantEntrySchema = z.looseObject({
  kind: z.literal('assistant'),
  content: z.array(z.discriminatedUnion('type', [TextBlock, ToolUseBlock, ThinkingBlock, RedactedThinkingBlock])).min(1),
});
export const CompactionEntrySchema = z.looseObject({
  kind: z.literal('compaction'),
  summary: z.string().min(1),
  /** How many messages, from the first, the summary replaced. */
  replaced: z.int().positive(),
});
/** Any transcript line. */
export const TranscriptLineSchema = z.looseObject({ kind: z.string().min(1) });

/** A conversation line of the transcript, by kind. */
export const ConversationEntrySchema = z.discriminatedUnion('kind', [UserEntrySchema, AssistantEntrySchema, CompactionEntrySchema]);
export type ConversationEntry = z.infer<typeof ConversationEntrySchema>;

/** The kinds ConversationEntrySchema reads; any other kind is a line for people. */
export const CONVERSATION_KINDS: ReadonlySet<string> = new Set(['user', 'assistant', 'compaction']);
