// Leader leases no live holder proves (team/lease-trust.ts), each naming a process that is alive
// here or a host that says it renewed in 2100: what a reboot, a reused pid, an older swarm or a
// forger leaves in config.json. None may lock a team out. The live one is a `sleep` this test
// starts (team-fixture's, stopped by reapChildren).
import type { LeadLease } from '../../src/protocol/config.js';
import { processIdentityIn } from '../../src/storage/pid.js';
import { startSleeper } from './team-fixture.js';

export const YEAR_2100 = Date.UTC(2100, 0, 1);

/** [what it is, the lease] on `host` (this machine's name as the code under test sees it). */
export async function forgedLeases(host: string): Promise<[string, LeadLease][]> {
  const swarm = processIdentityIn('/proc', process.pid)!; // what a swarm process records
  const sleeper = await startSleeper();
  const now = Date.now();
  const hourAgo = now - 3_600_000;
  return [
    ['pid 1, claimed before a reboot', { pid: 1, claimedAt: hourAgo, renewedAt: now, host, kind: 'agent', identity: { ...swarm, bootId: 'an-earlier-boot' } }],
    ["pid 1, an older swarm's lease left by a reboot", { pid: 1, claimedAt: hourAgo, renewedAt: hourAgo, host, kind: 'console' }],
    ['a live sleep under the identity of a swarm that had its pid', { pid: sleeper, claimedAt: now, renewedAt: now, host, kind: 'headless', identity: swarm }],
    ['a live sleep with no identity, renewed in 2100', { pid: sleeper, claimedAt: now, renewedAt: YEAR_2100, host, kind: 'console' }],
    ['another host, renewed in 2100', { pid: 4242, claimedAt: now, renewedAt: YEAR_2100, host: 'elsewhere', kind: 'agent' }],
  ];
}
