// What `swarm doctor [--fix] [--json]` does (the command line is commands/doctor.ts): check the
// machine and every team under the root, print each finding as a one-line problem and a one-line
// fix; `--fix` applies the safe fixes (chmod, remove stale locks, mark dead members inactive, clear
// orphaned requests, clear a leader lease no live holder proves, kill orphaned swarm sessions,
// remove what a killed `swarm demo` left, remove an orphaned worktree with no commits and no
// changes) and never deletes a member, a kept-aside file or work in a worktree, nor kills a
// teammate process config.json does not know of (reported with its `kill` line). `--host <h>` also
// checks a machine teammates run on over ssh (ssh, tmux, swarm, the shared root). Exit 0 when
// healthy, 1 while problems remain (warnings alone do not fail).
import { execaExec, isProcessAlive } from '../../backends/process.js';
import { checkIt2, checkPermissions, checkTmux, type CheckResult, type DoctorContext, type Finding, type Severity } from '../doctor/machine-checks.js';
import { checkDemos } from '../doctor/demos.js';
import { checkTmuxSessions } from '../doctor/sessions.js';
import { checkTeamFiles, checkTeamMembers } from '../doctor/team-checks.js';
import { checkLeases } from '../doctor/lease.js';
import { checkWorktrees } from '../doctor/worktrees.js';
import { checkStrayTeammates } from '../doctor/strays.js';
import { checkHosts } from '../doctor/hosts.js';
import { Team } from '../../team/team.js';
import { teamExists } from '../../team/team-store.js';
import { SwarmError } from '../../protocol/errors.js';
import { printJson, println, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { cliIo, setExitCode } from '../io.js';

export interface DoctorArgs extends GlobalArgs {
  fix: boolean;
  host?: string[];
}

/** One finding in `swarm doctor --json`. */
export interface FindingReport {
  check: string;
  severity: Severity;
  team?: string;
  path?: string;
  problem: string;
  fix: string;
  fixable: boolean;
  /** Set with --fix on a fixable finding: what was done, or why it could not be. */
  fixed?: boolean;
  fixResult?: string;
  fixError?: string;
}

/** `swarm doctor --json`. `healthy`: no problem remains (warnings allowed). */
export interface DoctorReport {
  root: string;
  healthy: boolean;
  passed: string[];
  findings: FindingReport[];
}

const CHECKS: ((ctx: DoctorContext) => Promise<CheckResult>)[] = [
  checkTmux,
  checkIt2,
  checkPermissions,
  checkTeamFiles,
  checkTeamMembers,
  checkLeases,
  checkStrayTeammates,
  checkTmuxSessions,
  checkDemos,
  checkWorktrees,
  checkHosts,
];

/** Run every check, then (with `fix`) every safe fix, in order. */
export async function runDoctor(ctx: DoctorContext, fix: boolean): Promise<DoctorReport> {
  const passed: string[] = [];
  const found: Finding[] = [];
  for (const check of CHECKS) {
    const r = await check(ctx);
    passed.push(...r.passed);
    found.push(...r.findings);
  }
  const findings: FindingReport[] = [];
  for (const f of found) {
    const { apply, ...rest } = f;
    const report: FindingReport = { ...rest, fixable: apply !== undefined };
    if (fix && apply) {
      try {
        report.fixResult = await apply();
        report.fixed = true;
      } catch (e) {
        report.fixed = false;
        report.fixError = e instanceof Error ? e.message : String(e);
      }
    }
    findings.push(report);
  }
  const healthy = !findings.some((f) => f.severity === 'problem' && f.fixed !== true);
  return { root: ctx.root, healthy, passed, findings };
}

function render(r: DoctorReport, fix: boolean): string[] {
  const out = [chalk.bold(`swarm doctor: root ${r.root}`)];
  for (const p of r.passed) out.push(`${chalk.green('✓')} ${p}`);
  for (const f of r.findings) {
    const mark = f.fixed === true ? chalk.green('✓') : f.severity === 'problem' ? chalk.red('✗') : f.severity === 'warning' ? chalk.yellow('!') : chalk.cyan('i');
    out.push(`${mark} ${f.problem}`);
    if (f.fixed === true) out.push(chalk.green(`    fixed: ${f.fixResult ?? ''}`));
    else {
      if (f.fixError !== undefined) out.push(chalk.red(`    fix failed: ${f.fixError}`));
      out.push(chalk.dim(`    fix: ${f.fix}`));
    }
  }
  const open = r.findings.filter((f) => f.severity === 'problem' && f.fixed !== true);
  const warnings = r.findings.filter((f) => f.severity === 'warning').length;
  const w = warnings > 0 ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : '';
  if (open.length === 0) out.push(chalk.green(`healthy${w}`));
  else {
    const hint = !fix && open.some((f) => f.fixable) ? ": run 'swarm doctor --fix' to apply the safe fixes" : '';
    out.push(chalk.red(`${open.length} problem${open.length === 1 ? '' : 's'}${w}${hint}`));
  }
  return out;
}

export async function doctor(args: DoctorArgs): Promise<void> {
  const root = rootDir();
  // --team narrows the team checks to one (that must exist); SWARM_TEAM alone does not.
  if (args.team !== undefined && !(await teamExists(new Team(root, args.team)))) {
    throw new SwarmError('not_found', `no team "${args.team}" under ${root}; see 'swarm team list'`);
  }
  const ctx: DoctorContext = {
    root,
    env: cliIo().env,
    exec: execaExec,
    now: Date.now(),
    isAlive: isProcessAlive,
    teams: args.team === undefined ? undefined : [args.team],
    hosts: args.host?.map(String),
  };
  const report = await runDoctor(ctx, args.fix);
  if (args.json) printJson(report);
  else for (const line of render(report, args.fix)) println(line);
  if (!report.healthy) setExitCode(1);
}
