// The tool names a permission rule may name: swarm's runtime tools (runtime/tools; a test keeps
// this list a superset of them) and the tools of Claude Code, whose teammates share the team's
// rules. MCP tools are `mcp__<server>` (every tool of the server) or `mcp__<server>__<tool>`.
// Names are case-sensitive, as the model calls them. `ToolName` is their union: a tool name written
// in code (a runtime tool, a list of tools, a comparison through isTool) that is not one of them
// does not compile.

export const KNOWN_TOOL_NAMES = [
  // swarm's runtime and Claude Code
  'Read',
  'Write',
  'Edit',
  'Bash',
  'Glob',
  'Grep',
  'SendMessage',
  'ExitPlanMode',
  // Claude Code only
  'MultiEdit',
  'NotebookEdit',
  'NotebookRead',
  'LS',
  'BashOutput',
  'KillShell',
  'WebFetch',
  'WebSearch',
  'TodoWrite',
  'Task',
  'TaskCreate',
  'TaskGet',
  'TaskList',
  'TaskOutput',
  'TaskStop',
  'TaskUpdate',
  'Agent',
  'TeamCreate',
  'TeamDelete',
  'EnterPlanMode',
  'AskUserQuestion',
  'Skill',
  'SlashCommand',
  'ToolSearch',
  'ListMcpResourcesTool',
  'ReadMcpResourceTool',
  'CronCreate',
  'CronDelete',
  'CronList',
  'EnterWorktree',
  'ExitWorktree',
  'LSP',
] as const;

export type ToolName = (typeof KNOWN_TOOL_NAMES)[number];

/** Whether `name` (as a request or rule carries it) is the tool `tool`. */
export function isTool(name: string, tool: ToolName): boolean {
  return name === tool;
}

/** Whether `name` is one of `tools`. */
export function isOneOfTools(name: string, tools: readonly ToolName[]): boolean {
  return (tools as readonly string[]).includes(name);
}

const MCP_RE = /^mcp__[A-Za-z0-9_-]+$/;

/** Whether a rule naming `tool` can ever match a tool call. */
export function isKnownToolName(tool: string): boolean {
  return (KNOWN_TOOL_NAMES as readonly string[]).includes(tool) || (MCP_RE.test(tool) && !tool.endsWith('__') && tool !== 'mcp__');
}
