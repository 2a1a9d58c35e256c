// One leader per team while an agent lead runs (SPEC §9): the lead hears team-lead's inbox through
// the one process that consumes it, so a second console or run on the same team would take some of
// its messages. `config.json`'s `leadProcess` names the leader's process (the console records it;
// a headless run does too, so `swarm status` shows the lead and a console opened meanwhile warns).
import { SwarmError } from '../../protocol/errors.js';
import { isProcessAlive } from '../../storage/pid.js';
import { readTeam, updateTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';

function busy(team: Team, pid: number): SwarmError {
  return new SwarmError(
    'exists',
    `team ${team.name} already has a leader (pid ${pid}, a console or a run): an agent lead must be its only leader; use that console, stop it, or pick another --team`,
  );
}

/** Throws when another live process leads the team. */
export async function refuseOtherLeader(team: Team, self = process.pid): Promise<void> {
  const pid = (await readTeam(team)).leadProcess?.pid;
  if (pid !== undefined && pid !== self && isProcessAlive(pid)) throw busy(team, pid);
}

/** Record this process as the team's leader (refused when another live one is); returns the release. */
export async function claimLeadProcess(team: Team, self = process.pid): Promise<() => Promise<void>> {
  await updateTeam(team, (c) => {
    const pid = c.leadProcess?.pid;
    if (pid !== undefined && pid !== self && isProcessAlive(pid)) throw busy(team, pid);
    c.leadProcess = { pid: self, claimedAt: Date.now() };
  });
  return async () => {
    await updateTeam(team, (c) => {
      if (c.leadProcess?.pid === self) delete c.leadProcess;
    }).catch(() => undefined); // the team may be gone
  };
}
