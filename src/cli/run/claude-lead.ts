// A Claude Code lead (docs/claude-code-lead.md): the `claude` command line `swarm run --lead claude`
// starts. swarm's MCP server is wired in (--mcp-config with `swarm mcp --team <team>` and the run's
// team flags; --strict-mcp-config: no other server); the lead's method — the built-in lead's text
// (runtime/lead/prompt.ts) in the MCP tools' names — is appended to Claude Code's system prompt; the
// swarm tools and the read-only tools are allowed without asking (anything else asks the person in
// the lead's pane, and is refused headless); --lead-model becomes its --model. The goal comes last,
// after `--`, so no goal is read as a flag. A SessionStart hook holds Claude Code's first prompt until
// the server leads the team (cli/mcp/ready.ts). The team's tools are loaded up front (ENABLE_TOOL_SEARCH
// false unless the person set it): a Claude Code that defers MCP tools behind a search would have to
// find its own job first.
import path from 'node:path';
import { quote } from 'shell-quote';
import { MCP_SERVER, MCP_VOICE } from '../mcp/names.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { LeadLimits } from '../../runtime/lead/limits.js';
import { buildLeadPrompt } from '../../runtime/lead/prompt.js';
import { ensureDir, writeFileAtomic } from '../../storage/atomic.js';
import { loadAgentTypes } from '../../team/agent-types.js';
import { readTeamMemory } from '../../team/memory.js';
import { memoryDir } from '../../team/paths.js';
import { readBudgetState } from '../../team/spend.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { resolveClaude, SWARM_BIN } from '../../teammates/command-line.js';
import type { TeamSettings } from './options.js';

/** The tools a Claude Code lead uses without asking: every tool of swarm's server, and reading. */
export const CLAUDE_LEAD_ALLOWED = [`mcp__${MCP_SERVER}`, 'Read', 'Glob', 'Grep'] as const;

/** The team flags as a command line (what `swarm mcp` and a run started again in a pane are given). */
export function teamFlags(s: TeamSettings): string[] {
  const flag = (name: string, v: string | number | undefined): string[] => (v === undefined ? [] : [`--${name}`, String(v)]);
  return [
    ...flag('max-teammates', s.limits.maxTeammates),
    ...flag('budget-usd', s.limits.budgetUsd),
    ...flag('budget-tokens', s.limits.budgetTokens),
    ...flag('backend', s.backend),
    ...flag('model', s.model),
    ...flag('permission-mode', s.permissionMode),
    ...flag('runtime', s.runtime),
  ];
}

/** `swarm mcp` for the team, as Claude Code starts it (this swarm, by this node). */
export function mcpServerArgv(team: Team, s: TeamSettings): string[] {
  return [process.execPath, SWARM_BIN, 'mcp', '--team', team.name, ...teamFlags(s)];
}

/** The MCP config Claude Code reads (--mcp-config takes the JSON itself: no file is written). */
export function mcpConfig(team: Team, s: TeamSettings): string {
  const [command, ...args] = mcpServerArgv(team, s);
  return JSON.stringify({ mcpServers: { [MCP_SERVER]: { type: 'stdio', command, args } } });
}

/** How long the SessionStart hook holds Claude Code's first prompt for the team's tools, seconds. */
export const READY_WAIT_SECONDS = 30;

/**
 * Settings for the lead's Claude Code: a SessionStart hook that holds its start — and so the goal,
 * its first prompt — until swarm's MCP server leads the team (cli/mcp/ready.ts): an interactive
 * Claude Code does not wait for its MCP servers by itself. Written to the team's file for them and
 * passed as that path: Claude Code copies settings given as JSON to a temp file it never removes.
 */
export async function writeClaudeLeadSettings(team: Team): Promise<string> {
  const command = quote([process.execPath, SWARM_BIN, 'mcp', '--team', team.name, '--wait-ready', String(READY_WAIT_SECONDS)]);
  const file = team.paths.claudeSettings(LEAD_NAME);
  await ensureDir(path.dirname(file));
  await writeFileAtomic(file, `${JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command, timeout: READY_WAIT_SECONDS + 10 }] }] } })}\n`);
  return file;
}

/** The lead's method for Claude Code's system prompt: the team, its limits, agent types and team memory as they are now. */
export async function claudeLeadPrompt(team: Team, s: TeamSettings): Promise<string> {
  const config = await readTeam(team);
  const limits = new LeadLimits(s.limits).describe(await readBudgetState(team, config));
  const agentTypes = loadAgentTypes({ cwd: s.cwd, root: team.root }).types;
  const memory = await readTeamMemory(memoryDir(team.root, s.cwd));
  return buildLeadPrompt({ team: team.name, cwd: s.cwd, scratchpad: team.paths.scratchpad, config, maxTeammates: s.limits.maxTeammates, limits, readTools: true, agentTypes, voice: MCP_VOICE, memory });
}

export interface ClaudeLeadCommand {
  /** `claude`, resolved on the person's PATH, then its arguments. */
  argv: string[];
  /** Its environment: the run's, and (unless the person set it) the team tools loaded up front. */
  env: NodeJS.ProcessEnv;
}

/**
 * The Claude Code lead's command line. `headless`: `claude -p`, its progress as stream-json (the
 * run prints it and takes the answer from its result). Throws (a one-line SwarmError) when `claude`
 * is not on PATH.
 */
export async function claudeLeadCommand(o: { team: Team; settings: TeamSettings; goal: string; leadModel?: string | undefined; headless: boolean; env: NodeJS.ProcessEnv }): Promise<ClaudeLeadCommand> {
  const claude = resolveClaude(o.env);
  const prompt = await claudeLeadPrompt(o.team, o.settings);
  return {
    // Claude Code may defer MCP tools behind a tool search (2.1.332 does); a lead's tools are its whole job.
    env: { ...o.env, ENABLE_TOOL_SEARCH: o.env.ENABLE_TOOL_SEARCH ?? 'false' },
    argv: [
      claude,
      ...(o.headless ? ['-p', '--output-format', 'stream-json', '--verbose'] : []),
      '--mcp-config',
      mcpConfig(o.team, o.settings),
      '--strict-mcp-config',
      '--settings',
      await writeClaudeLeadSettings(o.team),
      '--append-system-prompt',
      prompt,
      '--allowedTools',
      CLAUDE_LEAD_ALLOWED.join(','),
      ...(o.leadModel !== undefined ? ['--model', o.leadModel] : []),
      '--',
      o.goal,
    ],
  };
}
