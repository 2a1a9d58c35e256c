// `swarm doctor`'s findings and its machine-level checks: tmux presence and version, it2 (only
// inside iTerm2), and the permissions of the root, team and key directories and key files.
//
// A check returns findings (each a one-line problem and a one-line fix, and when a safe fix exists
// an `apply` that `--fix` runs) and the names of what passed. A `problem` keeps doctor's exit code
// at 1 until fixed; a `warning` is advice (swarm still works); `info` says how things are, nothing to
// fix (a team Claude Code made keeps Claude Code's own directory modes).
//
// A team was made by Claude Code when its directory is open to other users and its leader member
// has no colour: swarm's `team create` makes the directory 0700 and always gives the leader a
// colour; Claude Code's TeamCreate uses the umask's mode (0755) and gives the leader none. Then that
// directory, its inboxes/ and teams/ are Claude Code's: their modes are reported as info and
// `--fix` leaves them alone; the directories swarm adds there (permissions/, ...) are still 0700.
// A team swarm made whose directory someone opened stays a problem to fix.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { detectIt2, probeTmuxInstall, TMUX_MIN_VERSION } from '../../backends/registry.js';
import type { Exec } from '../../backends/process.js';
import { errnoCode } from '../../protocol/errors.js';
import { DIR_MODE, FILE_MODE, NOT_PRIVATE, PERMISSION_BITS } from '../../storage/atomic.js';
import { keysDir, resolveRoot, swarmDir, teamsDir } from '../../team/paths.js';
import { Team } from '../../team/team.js';
import { findMember, readTeam } from '../../team/team-store.js';
import { LEAD_NAME } from '../../protocol/names.js';

export type Severity = 'problem' | 'warning' | 'info';

export interface Finding {
  check: string;
  severity: Severity;
  /** One line: what is wrong. */
  problem: string;
  /** One line: what to do about it (the exact command where there is one). */
  fix: string;
  team?: string;
  path?: string;
  /** The safe fix `--fix` applies; resolves to one line saying what was done, throws if it could not. */
  apply?: () => Promise<string>;
}

export interface CheckResult {
  findings: Finding[];
  passed: string[];
}

export interface DoctorContext {
  root: string;
  env: Record<string, string | undefined>;
  exec: Exec;
  now: number;
  isAlive: (pid: number) => boolean;
  /** Only these teams (default: every team under the root). */
  teams?: string[] | undefined;
  /** `--host`: machines teammates run on over ssh, checked too (ssh, tmux, swarm, the shared root). */
  hosts?: string[] | undefined;
}

export async function checkTmux(ctx: DoctorContext): Promise<CheckResult> {
  const install = await probeTmuxInstall(ctx.exec);
  const warn = (problem: string, fix: string): CheckResult => ({ passed: [], findings: [{ check: 'tmux', severity: 'warning', problem, fix }] });
  switch (install.state) {
    case 'missing':
      return warn(
        'tmux is not installed (not found on PATH): teammates can only run in-process, without panes',
        `install tmux >= ${TMUX_MIN_VERSION} (apt install tmux, dnf install tmux, brew install tmux)`,
      );
    case 'broken':
      return warn(`tmux -V failed (exit ${install.exitCode}): ${install.text}`, 'reinstall tmux');
    case 'ok':
      if (install.tooOld) {
        return warn(`${install.text} is older than ${TMUX_MIN_VERSION}: pane labels and remain-on-exit may not work as swarm expects`, `upgrade tmux to ${TMUX_MIN_VERSION} or newer`);
      }
      return { passed: [install.version === undefined ? `${install.text} (version not numbered; assumed recent)` : install.text], findings: [] };
  }
}

/** it2 matters only inside iTerm2, and not inside tmux (tmux sets TERM_PROGRAM=tmux in its panes). */
export function inITerm2(env: Record<string, string | undefined>): boolean {
  if (env.TMUX) return false;
  return env.TERM_PROGRAM === 'iTerm.app' || Boolean(env.ITERM_SESSION_ID);
}

export async function checkIt2(ctx: DoctorContext): Promise<CheckResult> {
  if (!inITerm2(ctx.env)) return { passed: [], findings: [] };
  const d = await detectIt2(ctx.env, ctx.exec);
  if (d.usable) return { passed: ['it2 (iTerm2 split panes) is usable'], findings: [] };
  return {
    passed: [],
    findings: [{ check: 'it2', severity: 'warning', problem: `inside iTerm2 but ${d.reason}: teammates will use tmux or run in-process`, fix: d.hint }],
  };
}

function octal(mode: number): string {
  return `0${(mode & PERMISSION_BITS).toString(8)}`;
}

/** Directories and key files swarm keeps private (docs/protocol.md#root-layout: dirs 0700, files 0600). */
async function privatePaths(ctx: DoctorContext): Promise<{ dirs: string[]; files: string[] }> {
  const dirs = [ctx.root, teamsDir(ctx.root)];
  for (const team of await listTeamDirs(ctx)) {
    const p = team.paths;
    dirs.push(p.dir, p.inboxes, p.permissions, p.pending, p.resolved, p.statusDir, p.logsDir);
  }
  const keys = keysDir(ctx.root);
  dirs.push(swarmDir(ctx.root), keys);
  let files: string[] = [];
  try {
    files = (await fs.readdir(keys)).filter((n) => n.endsWith('.key')).map((n) => path.join(keys, n));
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  return { dirs, files };
}

/** Handles of the team directories under teams/ (valid names only), restricted to ctx.teams when given. */
export async function listTeamDirs(ctx: DoctorContext): Promise<Team[]> {
  let names: string[];
  try {
    names = await fs.readdir(teamsDir(ctx.root));
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const valid = names.filter((n) => /^[a-z0-9][a-z0-9-]{0,63}$/.test(n)).sort();
  return (ctx.teams === undefined ? valid : valid.filter((n) => ctx.teams!.includes(n))).map((n) => new Team(ctx.root, n));
}

async function modeOf(p: string): Promise<{ mode: number; isDir: boolean } | undefined> {
  try {
    const st = await fs.stat(p);
    return { mode: st.mode & PERMISSION_BITS, isDir: st.isDirectory() };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** Files Claude Code keeps in its config directory: a root holding one is shared with Claude Code. */
const CLAUDE_CODE_FILES = ['settings.json', '.credentials.json', 'projects', 'todos', 'statsig', 'plugins'];

/** True when the root is also Claude Code's own directory (~/.claude, or one holding its files). */
async function sharedWithClaudeCode(root: string): Promise<boolean> {
  if (path.resolve(root) === resolveRoot({})) return true; // the default root, ~/.claude
  for (const name of CLAUDE_CODE_FILES) if ((await modeOf(path.join(root, name))) !== undefined) return true;
  return false;
}

/** The directories of teams Claude Code made (see the header): each such team's directory and inboxes/, and teams/. */
async function claudeCodeTeamDirs(ctx: DoctorContext): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const team of await listTeamDirs(ctx)) {
    const st = await modeOf(team.paths.dir);
    if (st === undefined || (st.mode & NOT_PRIVATE) === 0) continue;
    const lead = await readTeam(team).then((c) => findMember(c, LEAD_NAME), () => undefined);
    if (lead === undefined || lead.color !== undefined) continue;
    out.set(teamsDir(ctx.root), 'teams directory');
    out.set(team.paths.dir, `team ${team.name}'s directory`);
    out.set(team.paths.inboxes, `team ${team.name}'s inboxes directory`);
  }
  return out;
}

export async function checkPermissions(ctx: DoctorContext): Promise<CheckResult> {
  const { dirs, files } = await privatePaths(ctx);
  const findings: Finding[] = [];
  const shared = await sharedWithClaudeCode(ctx.root);
  const claudeCodes = await claudeCodeTeamDirs(ctx);
  let checked = 0;
  const check = async (p: string, want: number, what: string): Promise<void> => {
    const st = await modeOf(p);
    if (st === undefined) return;
    checked++;
    if ((st.mode & NOT_PRIVATE) === 0) return; // no group/other bits: private enough
    const ccWhat = claudeCodes.get(p);
    if (ccWhat !== undefined) {
      checked--; // not one of the private paths the passed line counts
      findings.push({
        check: 'permissions',
        severity: 'info',
        path: p,
        problem: `${ccWhat} ${p} has mode ${octal(st.mode)}, as Claude Code made it; doctor leaves it alone`,
        fix: `nothing to do; to make it private anyway: chmod 700 ${quote([p])}`,
      });
      return;
    }
    if (shared && p === ctx.root) {
      // Claude Code owns this directory's mode: report, never change it.
      findings.push({
        check: 'permissions',
        severity: 'warning',
        path: p,
        problem: `${what} ${p} is open to other users (mode ${octal(st.mode)}); it is Claude Code's directory too, so doctor leaves it alone`,
        fix: `if nothing needs it shared: chmod 700 ${quote([p])} (swarm's own directories under it are kept private either way)`,
      });
      return;
    }
    findings.push({
      check: 'permissions',
      severity: 'problem',
      path: p,
      problem: `${what} ${p} is open to other users (mode ${octal(st.mode)}, expected ${octal(want)})`,
      fix: `chmod ${octal(want).slice(1)} ${quote([p])}  (swarm doctor --fix does it)`,
      apply: async () => {
        await fs.chmod(p, want);
        const after = await modeOf(p);
        if (after === undefined || after.mode !== want) throw new Error(`mode of ${p} is still ${after ? octal(after.mode) : 'unknown'}`);
        return `chmod ${octal(want)} ${p}`;
      },
    });
  };
  for (const d of dirs) await check(d, DIR_MODE, d === ctx.root ? 'the swarm root' : 'directory');
  for (const f of files) await check(f, FILE_MODE, 'leader key file');
  const open = findings.filter((f) => f.severity !== 'info');
  return { findings, passed: open.length === 0 ? [`permissions: the root${checked > 1 ? ` and ${checked - 1} more private path${checked === 2 ? '' : 's'}` : ''} (dirs 0700, key files 0600)`] : [] };
}
