// The teammate's tools, in the order the model sees them, and their API definitions (JSON Schema
// generated from the same zod schemas that validate the input). An agent type (docs/protocol.md#agent-types-and-worktrees) narrows
// them: its `tools` (all when absent) minus its `disallowedTools`, plus the team tools every
// teammate keeps; a read-only type's Bash is the read-only one. A subagent (runtime/subagent.ts) gets
// its type's tools without the team tools, ExitPlanMode and Agent: it answers its teammate with its
// final text, and cannot start another.
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import { TEAM_TOOL_NAMES, type AgentType } from '../../protocol/agent-type.js';
import { isOneOfTools, type ToolName } from '../../protocol/tool-names.js';
import { subagentTool } from './agent.js';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { exitPlanModeTool } from './exit-plan-mode.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readTool } from './read.js';
import { readOnlyBashTool } from './read-only-bash.js';
import { sendMessageTool } from './send-message.js';
import { TASK_TOOLS } from './tasks.js';
import type { AnyTool } from './types.js';
import { writeTool } from './write.js';

export const ALL_TOOLS: readonly AnyTool[] = [readTool, writeTool, editTool, bashTool, globTool, grepTool, sendMessageTool, ...TASK_TOOLS, exitPlanModeTool, subagentTool];

export function findTool(name: string): AnyTool | undefined {
  return ALL_TOOLS.find((t) => t.name === name);
}

/**
 * The tools a teammate of `type` is offered (all without a type). `keepPlanExit`: a teammate that
 * must get a plan approved keeps ExitPlanMode, or it could never leave plan mode.
 */
export function toolsForType(type: Pick<AgentType, 'tools' | 'disallowedTools' | 'readOnlyBash'> | undefined, keepPlanExit = false): AnyTool[] {
  if (type === undefined) return [...ALL_TOOLS];
  const always = (name: string): boolean => isOneOfTools(name, TEAM_TOOL_NAMES) || (keepPlanExit && name === exitPlanModeTool.name);
  const allowed = (name: string): boolean => always(name) || ((type.tools === undefined || type.tools.includes(name)) && !type.disallowedTools.includes(name));
  return ALL_TOOLS.filter((t) => allowed(t.name)).map((t) => (t === bashTool && type.readOnlyBash === true ? readOnlyBashTool : t));
}

/** What a subagent never has, whatever its type allows. */
const NOT_FOR_SUBAGENTS: readonly ToolName[] = [...TEAM_TOOL_NAMES, exitPlanModeTool.name, subagentTool.name];

/** The tools a subagent of `type` is offered (see the header). */
export function subagentTools(type: Pick<AgentType, 'tools' | 'disallowedTools' | 'readOnlyBash'>): AnyTool[] {
  return toolsForType(type).filter((t) => !isOneOfTools(t.name, NOT_FOR_SUBAGENTS));
}

export function apiTools(tools: readonly AnyTool[] = ALL_TOOLS): Tool[] {
  return tools.map((t) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(t.schema, { io: 'input' }) as Record<string, unknown>;
    return { name: t.name, description: t.description, input_schema: { ...schema, type: 'object' } as Tool['input_schema'] };
  });
}
