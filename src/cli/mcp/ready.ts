// Whether a Claude Code lead's team tools are there yet (docs/claude-code-lead.md): `swarm mcp
// --wait-ready`, run by the SessionStart hook `swarm run --lead claude` gives Claude Code. An
// interactive Claude Code sends its first prompt without waiting for its MCP servers, so a goal
// given on its command line would reach the model before the team's tools; the hook holds the
// session's start until this team's lease is held by a live swarm MCP server (it claims the lease
// only once its client has listed its tools, server.ts), or the deadline passes. It prints
// nothing on stdout: a SessionStart hook's stdout becomes context for the model.
import { LEAD_NAME } from '../../protocol/names.js';
import { leaseSelf, liveHolder } from '../../team/lead-lease.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';

const POLL_MS = 200;

/** True once a live swarm MCP server leads `team`; false when `timeoutMs` passed first. */
export async function awaitMcpLead(team: Team, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lease = (await readTeam(team).catch(() => undefined))?.leadProcess;
    if (liveHolder(lease, leaseSelf('console'))?.kind === 'mcp') return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What the hook says on stderr when the deadline passed. */
export function notReadyLine(team: Team, seconds: number): string {
  return `swarm: no swarm MCP server took the lead of team ${team.name} within ${seconds} s: ${LEAD_NAME}'s tools (mcp__swarm__*) may be missing; see /mcp`;
}
