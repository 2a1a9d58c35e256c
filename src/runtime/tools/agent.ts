// A teammate's Agent {description, prompt, subagent_type?, model?, fork?, name?} (docs/subagents.md):
// a subagent in the teammate's own process (runtime/subagent.ts runs it), never a new teammate —
// with `name` the call is refused and nothing else happens (the team roster is flat). The agent
// lead's Agent, which spawns teammates, is another tool (runtime/lead/tools.ts).
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { defineTool, type AnyTool } from './types.js';

/** The refusal of a named spawn, exactly. */
export const NAMED_SPAWN_REFUSAL = 'Teammates cannot spawn other teammates — the team roster is flat.';

const AgentInput = z.object({
  description: z.string().min(1).describe('A short (3-5 word) description of the task'),
  prompt: z.string().min(1).describe('The task for the subagent: all it will know (a fork also sees your conversation)'),
  subagent_type: z.string().min(1).optional().describe('The agent type (Explore, Plan, general-purpose, …); default general-purpose'),
  model: z.string().min(1).optional().describe('sonnet, opus, haiku or a model id; default the type’s, else yours'),
  fork: z.boolean().optional().describe('true: the subagent starts from your whole conversation and system prompt instead of a fresh context'),
  name: z.string().optional().describe('Not for teammates: a named spawn is refused'),
});

const checked = defineTool({
  name: 'Agent',
  kind: 'agent',
  description:
    'Run a subagent in your own process: it works on `prompt` alone, in a fresh context, with the system prompt and tools of `subagent_type` ' +
    '(Explore and Plan are read-only), and its final message comes back as this tool’s result. With fork: true it starts from your whole ' +
    'conversation instead. Its tokens count as yours. A subagent cannot start another; you cannot spawn teammates (no `name`).',
  schema: AgentInput,
  prepare: async (input, ctx) => {
    if (ctx.subagents === undefined) throw new SwarmError('invalid_input', 'Agent is not available here: a subagent cannot start another');
    return ctx.subagents.prepare({
      description: input.description,
      prompt: input.prompt,
      ...(input.subagent_type !== undefined ? { subagentType: input.subagent_type } : {}),
      ...(input.model !== undefined ? { model: input.model } : {}),
      fork: input.fork === true,
    });
  },
});

/** Whether the model asked for a named spawn (whatever else its input holds). */
function named(input: unknown): boolean {
  return typeof input === 'object' && input !== null && 'name' in input && (input as { name?: unknown }).name !== undefined;
}

// The named spawn is refused before the input is checked: the refusal, not a field problem, is what the model must read.
export const subagentTool: AnyTool = {
  ...checked,
  prepare: async (input, ctx) => {
    if (named(input)) throw new SwarmError('invalid_input', NAMED_SPAWN_REFUSAL);
    return checked.prepare(input, ctx);
  },
};
