// A teammate's subagents (docs/subagents.md): its Agent tool's calls (tools/agent.ts), each a
// sub-conversation in the teammate's own process — the agent loop (agent-loop.ts) run once, on the
// teammate's model client, permission gate and leader (its asks go to the person as the teammate's
// do), budget gate and status. Two modes:
//   fresh  the first user message is the prompt alone; the system prompt is buildSubagentPrompt for
//          `subagent_type` (default general-purpose), the tools its type's (tools/index.ts
//          subagentTools: Explore and Plan read-only), the model the call's, else the type's, else
//          the teammate's.
//   fork   the request is the teammate's system prompt, tools and messages byte for byte (the prompt
//          cache's prefix), then one user message: a placeholder result for each tool call of the
//          teammate's last assistant message (all still open: results are added after the round),
//          then the instruction. The tools are sent unchanged (a changed list would miss the cache);
//          Agent is refused when called.
// Either way a subagent cannot start another (Agent is left out or refused), runs to its end_turn,
// and its final text plus one usage line (tokens, tool uses, duration) is the tool result. Its
// tokens and cost are added to the teammate's status file (StatusReporter.subagentUsage), so the
// team's budget binds it; its transcript lines are the teammate's, kinds prefixed `subagent_`.
import type { ContentBlockParam, MessageParam, Tool, ToolUseBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { agentTypeModel, type AgentType } from '../protocol/agent-type.js';
import { SwarmError } from '../protocol/errors.js';
import { AgentLoop, type LoopEnd, type TurnOutcome } from './agent-loop.js';
import type { ModelClient } from './model-client.js';
import type { StatusReporter } from './status.js';
import type { ToolRunner } from './tool-runner.js';
import { subagentTool } from './tools/agent.js';
import { apiTools, subagentTools } from './tools/index.js';
import type { AnyTool, Invocation, SubagentRequest, Subagents, ToolOutput } from './tools/types.js';
import { subagentTranscript, type TranscriptSink } from './transcript.js';
import type { PaneView } from './view.js';

/** A fork's result for each tool call its parent had open. */
export const FORK_PLACEHOLDER = 'forked: this result belongs to the parent';

/** What a subagent gets when it calls Agent. */
export const NO_NESTED_SUBAGENTS = 'A subagent cannot start another subagent: do the work yourself, or end with what you found.';

/** How a fork's instruction begins (it knows it is a fork and what its last message is for). */
export const FORK_NOTE = '[swarm] You are a fork of this conversation: do only the task below, then end with your answer (your final message is the result your parent gets). You cannot start subagents.';

const DEFAULT_TYPE = 'general-purpose';

interface Start {
  system: string;
  /** What the subagent may run. */
  tools: readonly AnyTool[];
  /** What its requests carry (a fork's: the teammate's, unchanged). */
  apiTools: Tool[];
  model: ModelClient;
  first: ContentBlockParam[];
  history?: MessageParam[];
}

/** The teammate's side of its subagents: the loop it forks from, and everything a subagent shares with it. */
export interface SubagentDeps {
  /** The teammate's own loop (a fork's prefix); called only while it runs a tool round. */
  parent: () => AgentLoop;
  model: ModelClient;
  /** The teammate's runner: its gate, leader, status (narrowed to each subagent's tools). */
  runner: ToolRunner;
  /** The teammate's tools (a fork runs them, minus Agent). */
  tools: readonly AnyTool[];
  /** Agent type `name` (a one-line SwarmError when there is none). */
  agentType: (name: string) => AgentType;
  /** A fresh subagent's system prompt. */
  systemPrompt: (type: AgentType) => string;
  status: Pick<StatusReporter, 'subagentUsage'>;
  end: LoopEnd;
  beforeStep?: () => Promise<void>;
  view: PaneView;
  transcript: TranscriptSink;
  compactAt: number;
  now?: () => number;
}

/** The tool result: the final text, then one usage line. */
export function subagentResult(outcome: TurnOutcome, tokens: number, ms: number): string {
  const text = outcome.text === '' ? '(the subagent ended without a final message)' : outcome.text;
  return `${text}\n\n<usage>tokens: ${tokens}, tool_uses: ${outcome.toolCalls}, duration_ms: ${Math.round(ms)}</usage>`;
}

/** The fork's one user message: a placeholder for each open tool call of `parent`'s last message, then the instruction. */
export function forkTurn(parent: AgentLoop, prompt: string): ContentBlockParam[] {
  const last = parent.messages.at(-1);
  if (last?.role !== 'assistant' || typeof last.content === 'string') throw new SwarmError('invalid_input', 'fork: the conversation has no tool call to fork from');
  const open = last.content.filter((b): b is ToolUseBlockParam => b.type === 'tool_use');
  return [
    ...open.map((b): ContentBlockParam => ({ type: 'tool_result', tool_use_id: b.id, content: FORK_PLACEHOLDER })),
    { type: 'text', text: `${FORK_NOTE}\n\n${prompt}` },
  ];
}

export class TeammateSubagents implements Subagents {
  private count = 0;

  constructor(private readonly d: SubagentDeps) {}

  async prepare(request: SubagentRequest): Promise<Invocation> {
    if (request.fork && (request.subagentType !== undefined || request.model !== undefined)) {
      throw new SwarmError('invalid_input', 'fork: true runs with your own model, system prompt and tools; leave out subagent_type and model');
    }
    const type = request.fork ? undefined : this.d.agentType(request.subagentType ?? DEFAULT_TYPE);
    const kind = type?.name ?? 'fork';
    return { summary: `${kind}: ${request.description}`, execute: (signal) => this.run(request, type, signal) };
  }

  /** What the subagent's loop starts from: a fresh one's type, or the teammate's conversation for a fork. */
  private start(request: SubagentRequest, type: AgentType | undefined): Start {
    const d = this.d;
    if (type !== undefined) {
      const tools = subagentTools(type);
      return {
        system: d.systemPrompt(type),
        tools,
        apiTools: apiTools(tools),
        model: d.model.withModel(agentTypeModel({ model: request.model ?? type.model }) ?? d.model.model),
        first: [{ type: 'text', text: request.prompt }],
      };
    }
    const parent = d.parent();
    const system = parent.currentSystem;
    if (system === undefined) throw new SwarmError('invalid_input', 'fork: there is no turn under way to fork from');
    return {
      system,
      tools: d.tools.filter((t) => t.name !== subagentTool.name),
      apiTools: parent.apiTools,
      model: d.model,
      first: forkTurn(parent, request.prompt),
      history: [...parent.messages],
    };
  }

  private async run(request: SubagentRequest, type: AgentType | undefined, stop: AbortSignal): Promise<ToolOutput> {
    const d = this.d;
    const id = `subagent-${++this.count}`;
    const now = d.now ?? Date.now;
    const started = now();
    let tokens = 0;
    const transcript = subagentTranscript(d.transcript, id);
    const s = this.start(request, type);
    const loop = new AgentLoop({
      model: s.model,
      tools: s.apiTools,
      systemPrompt: () => Promise.resolve(s.system),
      runner: d.runner.narrowed({ tools: s.tools, ...(type ? { agentType: type.name } : {}), transcript, refused: new Map([[subagentTool.name, NO_NESTED_SUBAGENTS]]) }),
      inbox: { take: () => Promise.resolve([]), changed: () => Promise.reject(new Error('a subagent does not wait for work')) },
      end: d.end,
      presence: { working: () => Promise.resolve(), idle: () => Promise.resolve() },
      status: {
        usage: (promptTokens, outputTokens, costUsd) => {
          tokens += promptTokens + outputTokens;
          d.status.subagentUsage(promptTokens, outputTokens, costUsd);
        },
      },
      ...(d.beforeStep ? { beforeStep: d.beforeStep } : {}),
      tasks: { beginTurn: () => undefined, completedInTurn: () => undefined, claimNext: () => Promise.resolve([]) },
      view: d.view,
      transcript,
      stop,
      compactAt: d.compactAt,
      ...(s.history ? { history: s.history } : {}),
    });
    const kind = type?.name ?? 'fork';
    transcript.append({ kind: 'start', type: kind, model: s.model.model, description: request.description });
    d.view.notice(`${id} (${kind}, ${s.model.model}): ${request.description}`);
    const outcome = await loop.once(s.first);
    const ms = now() - started;
    transcript.append({ kind: 'end', tokens, toolUses: outcome.toolCalls, durationMs: ms });
    d.view.notice(`${id} finished: ${tokens} tokens, ${outcome.toolCalls} tool use${outcome.toolCalls === 1 ? '' : 's'}`);
    return { content: subagentResult(outcome, tokens, ms) };
  }
}
