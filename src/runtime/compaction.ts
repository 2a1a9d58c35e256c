// Compaction of a long conversation (docs/protocol.md#transcripts-and-resume): which older messages a summary replaces, and the
// one extra model request that writes the summary. The agent loop (agent-loop.ts) decides when
// (the last step's prompt passed SWARM_COMPACT_AT), applies the result (conversation.ts
// `compacted`) and records it in the transcript.
//
// The split: the kept part starts at an assistant message, so the summary (a user message) and it
// alternate, and a tool_use is never parted from its tool_result (they sit in an assistant message
// and the user message right after it). It keeps the last KEEP_RECENT messages when it can, and at
// least the latest exchange. The summary request has no tools: the older messages are rendered as
// text in one user message, so no tool_use, tool_result or thinking block needs tool definitions.
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { StepRequest } from './model-client.js';

/** Messages kept after a compaction when the conversation allows it (two tool rounds). */
export const KEEP_RECENT = 4;

/** Index of the first message to keep (everything before it is summarised); undefined: nothing to compact. */
export function splitPoint(messages: readonly MessageParam[]): number | undefined {
  let best: number | undefined;
  for (let i = 1; i <= messages.length - 2; i++) {
    if (messages[i]!.role !== 'assistant') continue;
    if (best === undefined || i <= messages.length - KEEP_RECENT) best = i;
  }
  return best;
}

function renderBlock(b: ContentBlockParam): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'tool_use':
      return `[tool call ${b.name} ${b.id}] ${JSON.stringify(b.input)}`;
    case 'tool_result': {
      const c = b.content;
      const body = c === undefined ? '' : typeof c === 'string' ? c : c.map((x) => (x.type === 'text' ? x.text : `[${x.type}]`)).join('\n');
      return `[tool result ${b.tool_use_id}${b.is_error ? ', error' : ''}]\n${body}`;
    }
    case 'thinking':
      return `[thinking]\n${b.thinking}`;
    default:
      return `[${b.type}]`;
  }
}

/** The older messages as plain text, one `### role` section per message. */
export function renderConversation(messages: readonly MessageParam[]): string {
  return messages
    .map((m) => {
      const body = typeof m.content === 'string' ? m.content : m.content.map(renderBlock).join('\n');
      return `### ${m.role}\n${body}`;
    })
    .join('\n\n');
}

export const SUMMARY_SYSTEM =
  'You summarise the earlier part of an agent\'s working conversation so the agent can continue without it. Write for the agent itself.';

/** Marks the summary request (the stand-in's scripts match on it). */
export const SUMMARY_TAG = 'conversation-to-summarise';

/** The summary request for messages[0, replaced): no tools, one user message. */
export function summaryRequest(older: readonly MessageParam[]): StepRequest {
  const text =
    `<${SUMMARY_TAG}>\n${renderConversation(older)}\n</${SUMMARY_TAG}>\n\n` +
    'Summarise the conversation above for the agent that had it; the most recent messages are kept as they are and follow your summary. ' +
    'Keep: the task and who gave it, decisions and their reasons, files read or changed (paths) and what was found, commands run and their results, ' +
    'messages to and from teammates, what is done and what is still open. Be concise and exact; no preamble.';
  return { system: SUMMARY_SYSTEM, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }] };
}
