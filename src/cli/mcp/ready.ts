// Whether a Claude Code lead's team tools are there yet (docs/claude-code-lead.md): `swarm mcp
// --wait-ready`, run by the SessionStart hook `swarm run --lead claude` gives Claude Code. An
// interactive Claude Code sends its first prompt without waiting for its MCP servers, so a goal
// given on its command line would reach the model before the team's tools; the hook holds the
// session's start until this team's lease is held by a live swarm MCP server (it claims the lease
// only once its client has listed its tools, server.ts) and a second more has passed (SETTLE_MS), or
// the deadline passes. It prints nothing on stdout: a SessionStart hook's stdout becomes context
// for the model.
import { LEAD_NAME } from '../../protocol/names.js';
import { leaseSelf, liveHolder } from '../../team/lead-lease.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';

const POLL_MS = 200;

/**
 * How long the hook still holds the session once the lease is held. The server takes it as soon as
 * it has answered the tools list, but Claude Code makes the listed tools its own a moment later:
 * with four Claude Code 2.1.332 sessions starting beside three busy processes on two cores, 8 of 48
 * first requests went out without the team's tools when the hook returned at once, none of 48 with
 * this wait (BENCHMARKS.md).
 */
export const SETTLE_MS = 1000;

/** True once a live swarm MCP server leads `team` (and SETTLE_MS have passed); false when `timeoutMs` passed first. */
export async function awaitMcpLead(team: Team, timeoutMs: number, settleMs = SETTLE_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lease = (await readTeam(team).catch(() => undefined))?.leadProcess;
    if (liveHolder(lease, leaseSelf('console'))?.kind === 'mcp') {
      await new Promise((r) => setTimeout(r, settleMs));
      return true;
    }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What the hook says on stderr when the deadline passed. */
export function notReadyLine(team: Team, seconds: number): string {
  return `swarm: no swarm MCP server took the lead of team ${team.name} within ${seconds} s: ${LEAD_NAME}'s tools (mcp__swarm__*) may be missing; see /mcp`;
}
