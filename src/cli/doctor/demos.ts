// `swarm doctor`: what a `swarm demo` left behind when its process was killed without a chance to
// clean up (SIGKILL, a crash; every other ending cleans up itself). A demo root in the OS temp dir
// (cli/demo/root.ts) whose marker names a pid that is no longer running is orphaned: its teammates
// may still run (retrying a stand-in that died with the demo), its `swarm-demo` session may still
// hold its console. `--fix` kills its teammates (verified), then its team sessions, then removes the
// root. A team session whose panes run under a demo root that no longer exists is orphaned too.
// Roots without a marker (a demo from before markers, or one starting this instant) are left alone.
import { promises as fs } from 'node:fs';
import type { ListedSession } from '../../backends/backend.js';
import { teamSessions } from '../../backends/registry.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { killTeammate } from '../../teammates/stop.js';
import { listTeams, readTeam } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { isDemoRootPath, listDemoRoots } from '../demo/root.js';
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
  const demoRootOf = (s: ListedSession): string | undefined =>
    s.panes
      .filter((p) => !p.dead)
      .map((p) => processRoot(p.pid))
      .find((r) => r !== undefined && isDemoRootPath(ctx.tmpDir, r));
  const findings: Finding[] = [];
  let running = 0;
  const judged = new Set<string>();
  for (const d of await listDemoRoots(ctx.tmpDir)) {
    if (d.marker === undefined) continue;
    judged.add(d.root);
    if (ctx.isAlive(d.marker.pid)) {
      running++;
      continue;
    }
    const teams = await listTeams(d.root);
    const teammates = teams.reduce((n, t) => n + t.members, 0);
    const own = listed.filter((s) => demoRootOf(s) === d.root);
    const what = [plural(teammates, 'teammate'), ...own.map((s) => `tmux session ${s.name}`)].join(', ');
    findings.push({
      check: 'orphan_demo',
      severity: 'problem',
      path: d.root,
      problem: `demo root ${d.root} is left from a swarm demo whose process (pid ${d.marker.pid}) is gone (${what})`,
      fix: `swarm doctor --fix (kills its teammates${own.length > 0 ? ` and ${own.map((s) => s.name).join(', ')}` : ''}, then removes the root)`,
      apply: async () => {
        const killed = await killDemoTeammates(d.root, ctx);
        for (const s of own) await sessions.kill(s.team);
        await fs.rm(d.root, { recursive: true, force: true });
        return `killed ${plural(killed, 'teammate')}${own.length > 0 ? ` and ${own.map((s) => s.name).join(', ')}` : ''}, removed ${d.root}`;
      },
    });
  }
  for (const s of listed) {
    const root = demoRootOf(s);
    if (root === undefined || judged.has(root)) continue;
    if (await fs.access(root).then(() => true, () => false)) continue; // an unmarked root that exists: not judged
    findings.push({
      check: 'orphan_demo',
      severity: 'problem',
      problem: `tmux session ${s.name} (${plural(s.panes.length, 'pane')}) belongs to a swarm demo whose root ${root} is gone`,
      fix: `${sessions.killLine(s.team)}  (swarm doctor --fix does it)`,
      apply: async () => {
        await sessions.kill(s.team);
        return `killed tmux session ${s.name}`;
      },
    });
  }
  const passed = findings.length === 0 ? [running > 0 ? `demos: ${running} running, none orphaned` : 'no orphaned demos'] : [];
  return { findings, passed };
}
