// `swarm doctor`'s check of each team's leader lease (config.json `leadProcess`, team/lead-lease.ts):
// a lease swarm does not believe (team/lease-trust.ts: its process exited, its pid is another
// process now, renewed in the future or too long ago) is a problem, reported with the reason.
// swarm already ignores it — the next console or run claims the lease — but the record is false and
// `swarm status` reads the leader's pid from it. `--fix` clears it under the config lock, only if
// the record there is still the same one and still not believed.
import { clearUntrustedLease, describeHolder, leaseSelf } from '../../team/lead-lease.js';
import { whyUntrusted } from '../../team/lease-trust.js';
import { readTeam } from '../../team/team-store.js';
import { listTeamDirs, type CheckResult, type DoctorContext, type Finding } from './machine-checks.js';

export async function checkLeases(ctx: DoctorContext): Promise<CheckResult> {
  const self = leaseSelf('console');
  const findings: Finding[] = [];
  const teams = await listTeamDirs(ctx);
  for (const team of teams) {
    const lease = await readTeam(team).then((c) => c.leadProcess, () => undefined); // an unreadable config.json is reported by the members check
    const why = lease === undefined ? undefined : whyUntrusted(lease, self, ctx.now);
    if (lease === undefined || why === undefined) continue;
    findings.push({
      check: 'dead_lease',
      severity: 'problem',
      team: team.name,
      path: team.paths.config,
      problem: `team ${team.name}'s leader lease names ${describeHolder(lease, self.host)}, which is not believed: ${why}`,
      fix: `swarm doctor --fix clears it (swarm already ignores it: the next swarm lead or swarm run --team ${team.name} claims the lease)`,
      apply: async () => {
        const r = await clearUntrustedLease(team, lease, self);
        if (!r.cleared) throw new Error(`team ${team.name}'s leader lease: ${r.why}`);
        return `cleared team ${team.name}'s leader lease (${describeHolder(lease, self.host)})`;
      },
    });
  }
  return { findings, passed: findings.length === 0 && teams.length > 0 ? ['no leader leases left by a dead or unproven holder'] : [] };
}
