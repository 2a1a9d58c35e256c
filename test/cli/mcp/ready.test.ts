// `swarm mcp --wait-ready` (cli/mcp/ready.ts), in-process: it holds Claude Code's session until a
// live swarm MCP server leads the team, and then SETTLE_MS more, in which Claude Code makes the
// tools it has just listed its own (without them its first request once went out with none of the
// team's tools). The lease is a `sleep`'s, under that process's own identity: another live process.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { awaitMcpLead, SETTLE_MS } from '../../../src/cli/mcp/ready.js';
import { processIdentityIn } from '../../../src/storage/pid.js';
import { createTeam, updateTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';

let team: Team;
useTempRoot(async (root) => {
  await createTeam(root, { name: 'crew' });
  team = new Team(root, 'crew');
});

async function leaseTo(kind: 'mcp' | 'console'): Promise<void> {
  const pid = await startSleeper();
  const identity = processIdentityIn('/proc', pid)!;
  await updateTeam(team, (c) => void (c.leadProcess = { pid, claimedAt: Date.now(), renewedAt: Date.now(), host: os.hostname(), kind, identity }));
}

describe('awaitMcpLead', () => {
  it('returns true once a live swarm MCP server holds the lease, and not before SETTLE_MS have passed since', async () => {
    expect(SETTLE_MS).toBeGreaterThanOrEqual(1000);
    await leaseTo('mcp');
    const started = Date.now();
    expect(await awaitMcpLead(team, 5000, 400)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('a console holding the lease is not an MCP server: false at the deadline', async () => {
    await leaseTo('console');
    expect(await awaitMcpLead(team, 300, 0)).toBe(false);
  });
});
