// The tool names a permission rule may name: swarm's runtime tools (runtime/tools; a test keeps
// this list a superset of them) and the tools of Claude Code, whose teammates share the team's
// rules. MCP tools are `mcp__<server>` (every tool of the server) or `mcp__<server>__<tool>`.
// Names are case-sensitive, as the model calls them.

export const KNOWN_TOOL_NAMES: readonly string[] = [
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
];

const MCP_RE = /^mcp__[A-Za-z0-9_-]+$/;

/** Whether a rule naming `tool` can ever match a tool call. */
export function isKnownToolName(tool: string): boolean {
  return KNOWN_TOOL_NAMES.includes(tool) || (MCP_RE.test(tool) && !tool.endsWith('__') && tool !== 'mcp__');
}
