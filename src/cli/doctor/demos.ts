// `swarm doctor`: what a `swarm demo` left behind when its process was killed without a chance to
// clean up (SIGKILL, a crash; every other ending cleans up itself). Only the demos this root
// started are judged (their records in `<root>/swarm/demos/`, cli/demo/root.ts): another user's or
// another root's demo in the shared temp dir is none of this doctor's business. A recorded demo
// root whose marker names a pid that is no longer running is orphaned: its teammates may still run
// (retrying a stand-in that died with the demo), its `swarm-demo` session may still hold its
// console. `--fix` kills its teammates (verified), then its team sessions, then removes the root and
// its record. A record whose root is gone is stale (its sessions, if any, orphaned): `--fix` kills
// those and removes the record. A recorded root without a marker yet (starting this instant) is left alone.
import { promises as fs } from 'node:fs';
import type { ListedSession } from '../../backends/backend.js';
import { teamSessions } from '../../backends/registry.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { killTeammate } from '../../teammates/stop.js';
import { listTeams, readTeam } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { listDemoRoots, removeDemoRoot } from '../demo/root.js';
import type { CheckResult, DoctorContext, Finding } from './machine-checks.js';
import { processRoot } from './sessions.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Stop every teammate of every team under an orphaned demo root; a member whose process is already gone needs nothing. */
async function killDemoTeammates(root: string, ctx: DoctorContext): Promise<number> {
  let killed = 0;
  for (const t of await listTeams(root)) {
    const team = new Team(root, t.name);
    const members = (await readTeam(team).catch(() => undefined))?.members ?? [];
    for (const m of members) {
      if (m.name === LEAD_NAME) continue;
      await killTeammate(team, m.name, { env: ctx.env }).then(
        () => killed++,
        (e: unknown) => {
          if (m.pid !== undefined && ctx.isAlive(m.pid)) throw e; // still running: the fix failed
        },
      );
    }
  }
  return killed;
}

export async function checkDemos(ctx: DoctorContext): Promise<CheckResult> {
  const sessions = teamSessions({ env: ctx.env, exec: ctx.exec });
  const listed: ListedSession[] = await sessions.list().catch(() => []); // no usable tmux: no sessions
  const recorded = await listDemoRoots(ctx.root); // only the demos this root started
  const ours = new Set(recorded.map((d) => d.root));
  const demoRootOf = (s: ListedSession): string | undefined =>
    s.panes
      .filter((p) => !p.dead)
      .map((p) => processRoot(p.pid))
      .find((r) => r !== undefined && ours.has(r));
  const findings: Finding[] = [];
  let running = 0;
  for (const d of recorded) {
    const own = listed.filter((s) => demoRootOf(s) === d.root);
    const killLine = own.length > 0 ? ` and ${own.map((s) => s.name).join(', ')}` : '';
    if (d.marker === undefined) {
      if (await fs.access(d.root).then(() => true, () => false)) continue; // a demo starting this instant: not judged
      findings.push({
        check: 'orphan_demo',
        severity: own.length > 0 ? 'problem' : 'warning',
        path: d.root,
        problem: `a swarm demo this root started left its record, but its root ${d.root} is gone${own.length > 0 ? ` (${own.map((s) => `tmux session ${s.name}`).join(', ')} still running)` : ''}`,
        fix: `swarm doctor --fix (removes the record${killLine ? `, kills${killLine.slice(4)}` : ''})`,
        apply: async () => {
          for (const s of own) await sessions.kill(s.team);
          await removeDemoRoot(ctx.root, d.root);
          return `removed the record of ${d.root}${killLine ? `, killed${killLine.slice(4)}` : ''}`;
        },
      });
      continue;
    }
    if (ctx.isAlive(d.marker.pid)) {
      running++;
      continue;
    }
    const teams = await listTeams(d.root);
    const teammates = teams.reduce((n, t) => n + t.members, 0);
    const what = [plural(teammates, 'teammate'), ...own.map((s) => `tmux session ${s.name}`)].join(', ');
    findings.push({
      check: 'orphan_demo',
      severity: 'problem',
      path: d.root,
      problem: `demo root ${d.root} is left from a swarm demo whose process (pid ${d.marker.pid}) is gone (${what})`,
      fix: `swarm doctor --fix (kills its teammates${killLine}, then removes the root)`,
      apply: async () => {
        const killed = await killDemoTeammates(d.root, ctx);
        for (const s of own) await sessions.kill(s.team);
        await removeDemoRoot(ctx.root, d.root);
        return `killed ${plural(killed, 'teammate')}${killLine}, removed ${d.root}`;
      },
    });
  }
  const passed = findings.length === 0 ? [running > 0 ? `demos: ${running} running, none orphaned` : 'no orphaned demos'] : [];
  return { findings, passed };
}
