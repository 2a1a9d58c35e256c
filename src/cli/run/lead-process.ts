// One leader per team while an agent lead runs (docs/protocol.md#agent-lead): the lead hears team-lead's inbox through
// the one process that consumes it, the holder of the leader lease (team/lead-lease.ts). A console
// can watch an agent lead; an agent lead cannot start while another live process holds the lease.
import { SwarmError } from '../../protocol/errors.js';
import type { LeadLease, LeaseKind } from '../../protocol/config.js';
import { describeHolder, keepsInbox, LeaseKeeper, leaseSelf, otherHolder, type LeaseSelf } from '../../team/lead-lease.js';
import type { Team } from '../../team/team.js';

function busy(team: Team, holder: LeadLease): SwarmError {
  const hint = keepsInbox(holder) ? 'stop it or pick another --team' : `quit that console, or take its place with swarm lead --agent --take-over --team ${team.name}`;
  return new SwarmError(
    'exists',
    `team ${team.name} is led by ${describeHolder(holder)}: an agent lead must take delivery of every message; watch with swarm lead --team ${team.name}, or ${hint}`,
  );
}

/** Throws when another live process holds the team's lease. */
export async function refuseOtherLeader(team: Team, self: LeaseSelf = leaseSelf('agent')): Promise<void> {
  const holder = await otherHolder(team, self);
  if (holder !== undefined) throw busy(team, holder);
}

/** Hold the team's lease as an agent lead (refused when another live process holds it); returns the release. */
export async function claimLeadProcess(team: Team, kind: LeaseKind, self: LeaseSelf = leaseSelf(kind)): Promise<() => Promise<void>> {
  const keeper = await LeaseKeeper.open(team, self);
  if (keeper.state.role === 'watcher') {
    await keeper.close();
    throw busy(team, keeper.state.holder);
  }
  return () => keeper.close();
}
