// Files that configure other members: agent types (SPEC §10: `<cwd>/.claude/agents/*.md` and
// `<root>/agents/*.md`, whose front matter sets tools, model and permissionMode of the next teammate
// of that type), Claude Code's settings (permissions, hooks, MCP servers: `.claude/settings*.json`,
// `<root>/settings*.json`) and project MCP servers (`.mcp.json`). A teammate that could write them
// unasked could widen what the next member may do, so Write and Edit of such a path ask team-lead
// in every permission mode (acceptEdits and bypassPermissions included; plan refuses edits anyway),
// and the pane and the request say why (`configSummary`). Reads stay free: they are not secrets.
// Team allow/deny rules decide first, as for any asked call (a rule naming the path, or a bare
// `Write`/`Edit` allow rule, is the person's standing answer).
// Matched on the path as given and its real path (a symlink to one is caught), wildcards matching
// dot files (path-patterns.ts). Not recognised: a hard link to one under another name (Write/Edit
// refuse any file with other links: checked-file.ts), the scripts a settings file's hooks point to,
// and Bash: its commands are not inspected (in bypassPermissions Bash runs unasked and can write
// these files; in every other mode each command asks anyway). What a rewritten agent file can grant
// is bounded anyway: its permissionMode never exceeds the person's (protocol/mode-ceiling.ts).
import { PathPatterns } from './path-patterns.js';

/** Anywhere (shown as is): `settings*.json` covers settings.json and settings.local.json. */
export const ANYWHERE_AGENT_CONFIG = ['**/.claude/agents/**', '**/.claude/settings*.json', '**/.mcp.json'] as const;
/** Under the root ($CLAUDE_CONFIG_DIR, shown as `<root>/…`): the user's agent types and settings. */
export const ROOT_AGENT_CONFIG = ['agents/**', 'settings*.json'] as const;

/** What the pane and team-lead see for a write of `shown`: why it is asked, when it is. */
export function configSummary(shown: string, pattern: string | undefined): string {
  return pattern === undefined ? shown : `${shown} (protected agent configuration: ${pattern})`;
}

/** The agent-configuration list, matched on every form of a path given. */
export type AgentConfigPaths = PathPatterns;
export const AgentConfigPaths = {
  create: (root: string): Promise<AgentConfigPaths> =>
    PathPatterns.compile({ bases: [{ label: '<root>', dir: root, patterns: ROOT_AGENT_CONFIG }], anywhere: ANYWHERE_AGENT_CONFIG }),
};
