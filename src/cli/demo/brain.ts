// What the demo's scripted "brains" share (scenario.ts for `swarm demo --manual`, lead-scenario.ts
// for `swarm demo`): a request read as a conversation (which tools the agent has used, what it was
// told, what its tools answered), reply builders, and the stand-in script that asks an agent's brain
// for each of its turns. Every brain approves a shutdown_request (SendMessage shutdown_response)
// before it is asked anything, so a graceful shutdown always works.
import type { IncomingRequest, ScriptInput, StepInput } from '../../standin/messages-server.js';
import { blockText, lastUserText, shutdownRequestId } from '../../standin/request.js';
import { shutdownApproval } from '../../standin/script.js';

export type Block = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export interface Conversation {
  /** Tool names the agent has called so far, in order. */
  used: string[];
  /** Every user-side text (prompts, teammate messages), joined. */
  heard: string;
  /** Every tool result the agent has had, joined. */
  results: string;
  /** The first user turn (the agent's prompt, or the lead's goal). */
  first: string;
  last: string;
}

export type Brain = (c: Conversation) => StepInput;

export function conversation(req: IncomingRequest): Conversation {
  const used: string[] = [];
  const heard: string[] = [];
  const results: string[] = [];
  for (const m of req.body.messages) {
    if (typeof m.content === 'string') {
      if (m.role === 'user') heard.push(m.content);
      continue;
    }
    for (const b of m.content) {
      if (m.role === 'assistant' && b.type === 'tool_use' && 'name' in b && typeof b.name === 'string') used.push(b.name);
      if (m.role === 'user' && b.type === 'text') heard.push(blockText(b));
      if (m.role === 'user' && b.type === 'tool_result') results.push(blockText(b));
    }
  }
  const first = req.body.messages[0];
  const firstText = first === undefined ? '' : typeof first.content === 'string' ? first.content : first.content.map(blockText).join('\n');
  return { used, heard: heard.join('\n'), results: results.join('\n'), first: firstText, last: lastUserText(req.body) };
}

/** How many times the agent has called `tool`. */
export const uses = (c: Conversation, tool: string): number => c.used.filter((u) => u === tool).length;

export const text = (t: string): Block => ({ type: 'text', text: t });
export const tool = (name: string, input: Record<string, unknown>): Block => ({ type: 'tool_use', name, input });
export const say = (to: string, message: string, summary: string): Block => tool('SendMessage', { to, message, summary });
export const reply = (...content: Block[]): StepInput => ({ reply: { content } });

/** The stand-in script: `turnsPerAgent` turns per agent, each asking the agent's brain. */
export function brainScript(brains: Readonly<Record<string, Brain>>, turnsPerAgent: number): ScriptInput {
  const turns = Object.entries(brains).flatMap(([agent, brain]) =>
    Array.from({ length: turnsPerAgent }, () => ({
      match: { agent },
      respond: (req: IncomingRequest): StepInput => {
        const id = shutdownRequestId(req.body);
        return id !== undefined ? { reply: shutdownApproval(id) } : brain(conversation(req));
      },
    })),
  );
  return { exhaustedReply: '(the demo script has nothing more to say)', turns };
}
