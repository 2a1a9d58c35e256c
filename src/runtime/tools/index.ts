// The teammate's tools, in the order the model sees them, and their API definitions (JSON Schema
// generated from the same zod schemas that validate the input).
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { bashTool } from './bash.js';
import { editTool } from './edit.js';
import { exitPlanModeTool } from './exit-plan-mode.js';
import { globTool } from './glob.js';
import { grepTool } from './grep.js';
import { readTool } from './read.js';
import { sendMessageTool } from './send-message.js';
import { TASK_TOOLS } from './tasks.js';
import type { AnyTool } from './types.js';
import { writeTool } from './write.js';

export const ALL_TOOLS: readonly AnyTool[] = [readTool, writeTool, editTool, bashTool, globTool, grepTool, sendMessageTool, ...TASK_TOOLS, exitPlanModeTool];

export function findTool(name: string): AnyTool | undefined {
  return ALL_TOOLS.find((t) => t.name === name);
}

export function apiTools(tools: readonly AnyTool[] = ALL_TOOLS): Tool[] {
  return tools.map((t) => {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(t.schema, { io: 'input' }) as Record<string, unknown>;
    return { name: t.name, description: t.description, input_schema: { ...schema, type: 'object' } as Tool['input_schema'] };
  });
}
