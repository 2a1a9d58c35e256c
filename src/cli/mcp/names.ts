// The names swarm's MCP server gives the lead's tools (docs/claude-code-lead.md), for clients that
// have tools of their own (Claude Code calls them mcp__swarm__<tool>): which of the agent lead's
// tools (runtime/lead/toolset.ts) each shared name runs, the names only this front end has, and the
// lead's method (runtime/lead/prompt.ts) in these names.
import type { ToolName } from '../../protocol/tool-names.js';
import type { LeadVoice } from '../../runtime/lead/prompt.js';

/** The server's name: the `swarm` of mcp__swarm__<tool>, and its key in an MCP config. */
export const MCP_SERVER = 'swarm';

/** The MCP name of each of the agent lead's own tools. */
export const SHARED_TOOLS = {
  spawn_teammate: 'Agent',
  send_message: 'SendMessage',
  stop_teammate: 'TaskStop',
  task_create: 'TaskCreate',
  task_get: 'TaskGet',
  task_list: 'TaskList',
  task_update: 'TaskUpdate',
} as const satisfies Record<string, ToolName>;

/** What only the MCP front end has: a client's turn is not woken by swarm, so it waits with a tool. */
export const MCP_ONLY_TOOLS = ['team_status', 'wait_for_messages'] as const;

export type McpToolName = keyof typeof SHARED_TOOLS | (typeof MCP_ONLY_TOOLS)[number];

/** How Claude Code names a tool of this server. */
export function clientToolName(tool: McpToolName): string {
  return `mcp__${MCP_SERVER}__${tool}`;
}

/** The built-in names in a tool's text (a description, an error) as this server names them. */
export function inMcpNames(text: string): string {
  let out = text;
  for (const [mcp, builtIn] of Object.entries(SHARED_TOOLS)) out = out.replace(new RegExp(`\\b${builtIn}\\b(?=[ ,.;:)"'\\]]|$)`, 'g'), mcp);
  return out;
}

/** The lead's method as a Claude Code lead reads it (its appended system prompt). */
export const MCP_VOICE: LeadVoice = {
  spawn: clientToolName('spawn_teammate'),
  send: clientToolName('send_message'),
  taskCreate: clientToolName('task_create'),
  taskUpdate: clientToolName('task_update'),
  readWith: 'Read, Glob and Grep',
  wait:
    `To hear from teammates call ${clientToolName('wait_for_messages')}: it returns their messages, idle notifications and task changes as they arrive, each once. ` +
    'Nothing wakes you otherwise: keep calling it while teammates work.',
  end:
    `When no teammate is working and no task is open, stop the teammates (${clientToolName('send_message')} {"type":"shutdown_request"}) and answer with a complete summary of the outcome: ` +
    'that answer is the final one for the person.',
};
