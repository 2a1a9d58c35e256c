// One tool_use block, start to finish: find the tool → prepare (validate) → permission gate (refuse,
// run, or ask team-lead) → execute → tool_result. Every failure on the way is an is_error result the
// model reads; nothing here throws except an abort of the whole teammate. Each call is one pane line
// (and one for its result), two transcript lines, a tool-use count and an activity in status.
import type { ToolResultBlockParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import type { PermissionMode } from '../protocol/config.js';
import type { RuleSet } from '../permissions/rules.js';
import type { Ask } from './leader-ask.js';
import { deniedByRule, gate } from './permission-gate.js';
import type { StatusReporter } from './status.js';
import { findTool } from './tools/index.js';
import type { AnyTool, Invocation, ToolContext, ToolOutput } from './tools/types.js';
import type { ToolName } from '../protocol/tool-names.js';
import { oneLine } from '../protocol/text.js';
import type { TranscriptSink } from './transcript.js';
import type { PaneView } from './view.js';

export interface ToolRunnerDeps {
  /** The tools this teammate is offered (its agent type's); any other call is refused. */
  tools: readonly AnyTool[];
  agentType?: string;
  ctx: ToolContext;
  mode: () => PermissionMode;
  teamRules: () => Promise<RuleSet>;
  ask: Ask;
  view: PaneView;
  transcript: TranscriptSink;
  status: StatusReporter;
  /** Tools left out on purpose, with the refusal a call gets (a subagent's Agent: subagent.ts). */
  refused?: ReadonlyMap<ToolName, string>;
}

export interface RoundSignals {
  /** The teammate is stopping: everything ends. */
  stop: AbortSignal;
  /** Waits on the leader (permission, plan) also end when a shutdown request arrives. */
  wait: AbortSignal;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function inputSummary(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const o = input as Record<string, unknown>;
  for (const k of ['command', 'file_path', 'pattern', 'to']) if (typeof o[k] === 'string') return o[k];
  return oneLine(JSON.stringify(input), 80);
}

export class ToolRunner {
  constructor(private readonly d: ToolRunnerDeps) {}

  /** The same gate, leader and status for other tools (a subagent's): `tools`, its type, its transcript, its refusals. */
  narrowed(o: Pick<ToolRunnerDeps, 'tools' | 'agentType' | 'transcript' | 'refused'>): ToolRunner {
    const { agentType: _parentType, refused: _parentRefused, ...rest } = this.d;
    return new ToolRunner({ ...rest, ...o });
  }

  async run(block: ToolUseBlock, signals: RoundSignals): Promise<ToolResultBlockParam> {
    const d = this.d;
    d.transcript.append({ kind: 'tool_call', id: block.id, name: block.name, input: block.input });
    d.status.toolUse();
    const out = await this.outcome(block, signals).catch((e: unknown): ToolOutput => {
      if (signals.stop.aborted) throw e;
      return { content: messageOf(e), isError: true };
    });
    const content = out.content === '' ? '(no output)' : out.content;
    d.view.toolResult(content, out.isError === true);
    d.transcript.append({ kind: 'tool_result', id: block.id, name: block.name, isError: out.isError === true, chars: content.length, preview: oneLine(content, 200) });
    return { type: 'tool_result', tool_use_id: block.id, content, ...(out.isError ? { is_error: true } : {}) };
  }

  private async outcome(block: ToolUseBlock, signals: RoundSignals): Promise<ToolOutput> {
    const d = this.d;
    const tool = d.tools.find((t) => t.name === block.name);
    if (!tool) {
      d.view.toolCall(block.name, inputSummary(block.input));
      const refusal = [...(d.refused ?? [])].find(([name]) => name === block.name)?.[1];
      if (refusal !== undefined) return { content: refusal, isError: true };
      const available = d.tools.map((t) => t.name).join(', ');
      if (d.agentType !== undefined && findTool(block.name)) {
        return { content: `${block.name} is not allowed for the agent type ${d.agentType}; use one of: ${available}`, isError: true };
      }
      return { content: `unknown tool ${block.name}; available: ${available}`, isError: true };
    }
    let invocation: Invocation;
    try {
      invocation = await tool.prepare(block.input, d.ctx);
    } catch (e) {
      d.view.toolCall(block.name, inputSummary(block.input));
      throw e;
    }
    d.view.toolCall(tool.name, invocation.summary);
    d.status.activity(`${tool.name} ${invocation.summary}`);
    const target = invocation.targetPath ? { path: invocation.targetPath, cwd: d.ctx.cwd, scratchpad: d.ctx.guard.scratchpad?.real, ...(invocation.savesMemory === true ? { memory: true } : {}) } : undefined;
    const decision = gate(tool.kind, d.mode(), target, invocation.secret ?? invocation.configures);
    if (decision.action === 'refuse') return { content: decision.reason, isError: true };
    if (decision.action === 'run') {
      const rule = deniedByRule(await d.teamRules(), tool.name, tool.kind, block.input, d.ctx.cwd);
      if (rule) {
        d.view.decided(false, `denied by team rule ${rule}`);
        return { content: `Permission to use ${tool.name} was denied by the team rule ${rule}.`, isError: true };
      }
      return this.execute(tool, invocation, signals);
    }
    return this.askThenRun(tool, block, invocation, signals);
  }

  private async execute(tool: AnyTool, invocation: Invocation, signals: RoundSignals): Promise<ToolOutput> {
    // Leader waits (ExitPlanMode) end early on a shutdown request; work (Bash) only on a stop.
    if (tool.kind !== 'plan') return invocation.execute(signals.stop);
    try {
      return await invocation.execute(signals.wait);
    } catch (e) {
      if (signals.stop.aborted || !signals.wait.aborted) throw e;
      this.d.view.notice('stopped waiting for the plan answer: a shutdown request arrived');
      return {
        content: 'Interrupted: a shutdown request from team-lead arrived while you waited for plan approval. Answer it first; an approval that comes later still applies.',
        isError: true,
      };
    }
  }

  private async askThenRun(tool: AnyTool, block: ToolUseBlock, invocation: Invocation, signals: RoundSignals): Promise<ToolOutput> {
    const d = this.d;
    const input = (typeof block.input === 'object' && block.input !== null ? block.input : {}) as Record<string, unknown>;
    const before = d.status.state;
    d.status.setState('waiting_permission');
    let result;
    try {
      result = await d.ask({ toolName: tool.name, toolUseId: block.id, input, summary: invocation.summary }, signals.wait);
    } catch (e) {
      if (signals.stop.aborted || !signals.wait.aborted) throw e;
      d.view.notice('permission request withdrawn: a shutdown request arrived');
      return {
        content: 'Not run: a shutdown request from team-lead arrived while waiting for permission (the request was withdrawn). Answer the shutdown request first.',
        isError: true,
      };
    } finally {
      d.status.setState(before === 'waiting_permission' ? 'working' : before);
    }
    d.transcript.append({ kind: 'permission', tool: tool.name, decision: result.decision, id: result.id, source: result.source, by: result.by, ...(result.feedback ? { feedback: result.feedback } : {}) });
    if (result.decision === 'deny') {
      d.view.decided(false, `denied by ${result.by}: ${result.feedback}`);
      return { content: `Permission to use ${tool.name} was denied by ${result.by}: ${result.feedback}`, isError: true };
    }
    d.view.decided(true, `allowed by ${result.by}${result.feedback ? `: ${result.feedback}` : ''}`);
    let run = invocation;
    if (result.updatedInput) run = await tool.prepare(result.updatedInput, d.ctx); // the leader's edit, validated again
    const out = await this.execute(tool, run, signals);
    return result.feedback ? { ...out, content: `${out.content}\n(Note from team-lead: ${result.feedback})` } : out;
  }
}
