// `swarm doctor`'s checks of the files and processes of each team under the root (the locks and
// kept-aside files also in its task list, tasks/<team>/):
// - lock directories (`*.lock`) whose mtime is older than STALE_LOCK_MS (storage/lock.ts): a live holder refreshes its
//   lock every second, so these belong to dead processes (--fix removes one only if it is still stale
//   when it gets there);
// - a `*.lock` path that is a symlink (a lock must be a real directory; --fix removes the link) and
//   team directories (inboxes/, permissions/, ...) that are symlinks, which swarm refuses to use;
// - entries that are not what their names must be (odd-entries.ts): a `*.lock` path that is a file
//   (--fix removes an empty one), an inbox that is a FIFO or a symlink, ...;
// - the team's lead key: unreadable or corrupt means every signed send fails;
// - the audit log's chain of `prev` digests: a break means a line was edited or removed;
// - files kept aside as `*.corrupt-<time>`: listed with their size, never deleted;
// - the team's task list (tasks/<team>/, also scanned for the locks and kept-aside files above):
//   names that are not read as tasks (a symlink, FIFO or directory named like a task file, an id
//   past the highest) and an unusable `.highwatermark`, by name, with how to clear them (tasks/store);
// - members whose pane is gone or whose pid is dead (liveness checked for real): marked active →
//   a problem (--fix marks them inactive; members are never deleted: `swarm kill <name>` does that);
//   already inactive, or never started → a warning with the `swarm kill` line;
// - pending permission requests whose worker is dead or no longer a member (--fix clears them, with
//   an audit line, through permissions/leader);
// - questions (permission requests, inbox-only ones included, and plan approvals) older than
//   UNANSWERED_MS whose worker lives while no live leader holds the team's lease (a leader that
//   died, e.g. a SIGKILLed `swarm run -p`): the teammate waits for an answer nobody will give. No
//   --fix: only a person decides; the fix line names the console and the one-shot commands;
// - unfinished tasks owned by a dead member (--fix releases them to the list and tells team-lead,
//   as `swarm status` does by itself: teammates/release).
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { gatherLivenessFacts, judgeLiveness, recordedPaneOf, type Liveness, type LivenessFacts } from '../../teammates/liveness.js';
import { clearOrphaned } from '../../permissions/leader.js';
import { pendingIds, readPending } from '../../permissions/pending.js';
import { inboxOnlyRequests } from '../../permissions/pending-list.js';
import { openPlanRequests } from '../../permissions/plan-answer.js';
import { leaseSelf, liveHolder } from '../../team/lead-lease.js';
import { loadLeadKey } from '../../permissions/keys.js';
import { verifyAuditChain } from '../../permissions/audit.js';
import type { Member, TeamConfig } from '../../protocol/config.js';
import type { PendingRequest } from '../../protocol/permission.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { findMember, readTeam, updateMember } from '../../team/team-store.js';
import { isSwarmError } from '../../protocol/errors.js';
import type { Team } from '../../team/team.js';
import { listTeamDirs, type CheckResult, type DoctorContext, type Finding } from './machine-checks.js';
import { scanList, TaskList } from '../../tasks/index.js';
import { releaseTasksOf } from '../../teammates/release.js';
import { resumeCommand } from '../../teammates/status-report.js';
import { formatAge } from '../output/age.js';
import { STALE_LOCK_MS } from '../../storage/lock.js';
import { CORRUPT_LABEL, keptAsideAt } from '../../storage/atomic.js';
import { inboxEntryFindings, oddLockFinding } from './odd-entries.js';

/** A member reserved this long ago with neither pane nor pid never started. */
export const UNSTARTED_MS = 60_000;
/** A question waiting this long while no leader runs is reported: nobody is there to answer it. */
export const UNANSWERED_MS = 5 * 60_000;

interface Found {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * `*.lock` directories, `*.lock` symlinks, `*.lock` paths that are anything else (a file, a FIFO)
 * and `*.corrupt-*` files under `dir` (lock dirs and links are not descended into).
 */
export async function scanTeamDir(dir: string, depth = 4): Promise<{ locks: Found[]; linkedLocks: string[]; oddLocks: { path: string; st: Stats }[]; corrupt: Found[] }> {
  const locks: Found[] = [];
  const linkedLocks: string[] = [];
  const oddLocks: { path: string; st: Stats }[] = [];
  const corrupt: Found[] = [];
  const walk = async (d: string, left: number): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return; // vanished meanwhile
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink() && e.name.endsWith('.lock')) {
        linkedLocks.push(p);
        continue;
      }
      // (`.lock` alone is no lock path but the target of one: the task list's, whose lock is `.lock.lock`.)
      if (!e.isDirectory() && e.name.endsWith('.lock') && e.name !== '.lock') {
        const st = await fs.lstat(p).catch(() => undefined); // gone meanwhile: nothing to report
        if (st !== undefined) oddLocks.push({ path: p, st });
        continue;
      }
      const isLock = e.isDirectory() && e.name.endsWith('.lock');
      const isCorrupt = e.isFile() && keptAsideAt(e.name, CORRUPT_LABEL) !== undefined;
      if (isLock || isCorrupt) {
        try {
          const st = await fs.stat(p);
          (isLock ? locks : corrupt).push({ path: p, size: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // released meanwhile
        }
      } else if (e.isDirectory() && left > 0) {
        await walk(p, left - 1);
      }
    }
  };
  await walk(dir, depth);
  return { locks, linkedLocks, oddLocks, corrupt };
}

/** "12 B", "3.4 kB", "1.2 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function staleLockFinding(ctx: DoctorContext, team: string, lock: Found): Finding {
  const rel = path.relative(ctx.root, lock.path);
  return {
    check: 'stale_lock',
    severity: 'problem',
    team,
    path: lock.path,
    problem: `stale lock ${rel}: untouched for ${formatAge(ctx.now - lock.mtimeMs)} (its holder died), so writers of that file wait and fail`,
    fix: `swarm doctor --fix removes it (or: rmdir '${lock.path}')`,
    apply: async () => {
      const st = await fs.stat(lock.path).catch(() => undefined);
      if (st === undefined) return `${rel} was already gone`;
      if (Date.now() - st.mtimeMs <= STALE_LOCK_MS) throw new Error(`${rel} was refreshed meanwhile (a live holder); left alone`);
      await fs.rmdir(lock.path);
      return `removed stale lock ${rel}`;
    },
  };
}

function linkedLockFinding(ctx: DoctorContext, team: string, link: string): Finding {
  const rel = path.relative(ctx.root, link);
  return {
    check: 'linked_lock',
    severity: 'problem',
    team,
    path: link,
    problem: `lock ${rel} is a symlink, not a lock directory: writers of that file cannot lock it safely`,
    fix: `swarm doctor --fix removes the link (or: rm '${link}')`,
    apply: async () => {
      const st = await fs.lstat(link).catch(() => undefined);
      if (st === undefined) return `${rel} was already gone`;
      if (!st.isSymbolicLink()) throw new Error(`${rel} is no longer a symlink; left alone`);
      await fs.unlink(link);
      return `removed the symlink ${rel}`;
    },
  };
}

/** The team's directories that swarm refuses to use while they are symlinks (team/paths). */
async function linkedDirFindings(ctx: DoctorContext, team: Team): Promise<Finding[]> {
  const { paths } = team;
  const out: Finding[] = [];
  for (const dir of [paths.inboxes, paths.permissions, paths.pending, paths.resolved, paths.statusDir, paths.logsDir]) {
    const st = await fs.lstat(dir).catch(() => undefined);
    if (!st?.isSymbolicLink()) continue;
    const target = await fs.readlink(dir).catch(() => '?');
    const rel = path.relative(ctx.root, dir);
    out.push({
      check: 'linked_dir',
      severity: 'problem',
      team: team.name,
      path: dir,
      problem: `${rel} is a symlink (to ${target}); swarm refuses to read or write team files through it, so every command that needs it fails`,
      fix: `replace it with a real directory: rm '${dir}' && mkdir -m 700 '${dir}' (first copy in what you need from ${target})`,
    });
  }
  return out;
}

/** Task names the list does not read (tasks/store's scan: nothing is read but `.highwatermark`, a regular file only). */
function taskEntryFindings(team: Team): Finding[] {
  const dir = team.paths.tasks.dir;
  try {
    return scanList(team.paths.tasks).map((s) => ({ check: 'task_entry', severity: 'problem', team: team.name, path: s.file, problem: s.problem, fix: s.fix }));
  } catch (e) {
    return [{ check: 'task_entry', severity: 'problem', team: team.name, path: dir, problem: `team ${team.name}'s task list cannot be read: ${(e as Error).message}`, fix: `make ${dir} a directory of task files again (ls -la '${dir}')` }];
  }
}

/** A lead key that exists but cannot be loaded: every message signed as the leader fails. */
async function leadKeyFindings(team: Team): Promise<Finding[]> {
  try {
    await loadLeadKey(team);
    return [];
  } catch (e) {
    if (isSwarmError(e, 'not_found')) return []; // made on the next launch or send
    return [{ check: 'lead_key', severity: 'problem', team: team.name, problem: `team ${team.name}'s lead key is unusable, so no message from the leader can be signed`, fix: (e as Error).message }];
  }
}

/** Breaks in the chain of audit.jsonl (never fixed: the log is evidence). */
async function auditChainFindings(ctx: DoctorContext, team: Team): Promise<Finding[]> {
  const file = team.paths.audit;
  const { breaks } = await verifyAuditChain(team.paths).catch(() => ({ breaks: [] })); // a linked dir is reported on its own
  if (breaks.length === 0) return [];
  const [first] = breaks;
  const more = breaks.length > 1 ? ` (and ${breaks.length - 1} more break${breaks.length > 2 ? 's' : ''})` : '';
  return [
    {
      check: 'audit_chain',
      severity: 'problem',
      team: team.name,
      path: file,
      problem: `${path.relative(ctx.root, file)} line ${first!.line} ${first!.problem}${more}`,
      fix: `look at the lines around it: sed -n '${Math.max(1, first!.line - 1)},${first!.line}p' '${file}'; swarm never rewrites the log (to start a fresh chain once you know why: mv '${file}' '${file}.broken-${ctx.now}')`,
    },
  ];
}

function corruptFinding(ctx: DoctorContext, team: string, f: Found): Finding {
  const rel = path.relative(ctx.root, f.path);
  return {
    check: 'corrupt_file',
    severity: 'warning',
    team,
    path: f.path,
    problem: `kept aside: ${rel} (${formatSize(f.size)}, ${formatAge(ctx.now - f.mtimeMs)} ago): a file that did not parse; a fresh one replaced it`,
    fix: `inspect it (less '${f.path}'), recover what you need, then delete it yourself: swarm never does`,
  };
}

export async function checkTeamFiles(ctx: DoctorContext): Promise<CheckResult> {
  const findings: Finding[] = [];
  let fresh = 0;
  const teams = await listTeamDirs(ctx);
  for (const team of teams) {
    const corrupt: Found[] = [];
    // The team's directory, and its task list (tasks/<team>/, flat: its locks are taken the same way).
    for (const [dir, depth] of [[team.paths.dir, 4], [team.paths.tasks.dir, 0]] as const) {
      const scan = await scanTeamDir(dir, depth);
      for (const l of scan.locks) {
        if (ctx.now - l.mtimeMs > STALE_LOCK_MS) findings.push(staleLockFinding(ctx, team.name, l));
        else fresh++;
      }
      for (const link of scan.linkedLocks) findings.push(linkedLockFinding(ctx, team.name, link));
      for (const odd of scan.oddLocks) findings.push(oddLockFinding(ctx, team.name, odd.path, odd.st));
      corrupt.push(...scan.corrupt);
    }
    findings.push(...(await linkedDirFindings(ctx, team)));
    findings.push(...(await inboxEntryFindings(ctx, team)));
    findings.push(...(await leadKeyFindings(team)));
    findings.push(...(await auditChainFindings(ctx, team)));
    findings.push(...taskEntryFindings(team));
    for (const c of corrupt) findings.push(corruptFinding(ctx, team.name, c));
  }
  const passed: string[] = [];
  const has = (check: string) => findings.some((f) => f.check === check);
  // A lock refreshed within the stale window is in use, or its holder died less than that long ago.
  const freshNote = fresh > 0 ? ` (${fresh} touched within ${STALE_LOCK_MS / 1000} s: in use, or a holder that died since; rerun later to tell)` : '';
  if (!has('stale_lock') && !has('linked_lock')) passed.push(`no stale locks${freshNote}`);
  if (!has('linked_dir')) passed.push('no symlinked team directories');
  if (!has('odd_lock') && !has('odd_inbox_entry')) passed.push('every lock a directory, every inbox a regular file');
  if (!has('lead_key') && teams.length > 0) passed.push('no unreadable lead keys');
  if (!has('audit_chain') && teams.length > 0) passed.push('audit logs unbroken');
  if (!has('corrupt_file')) passed.push('no corrupt files kept aside');
  if (!has('task_entry') && teams.length > 0) passed.push('task lists hold only task files');
  return { findings, passed };
}

function describeDeath(m: Member, l: Liveness): string {
  const pane = l.pane === 'gone' ? `its pane ${m.tmuxPaneId} is gone` : l.pane === 'dead' ? `its pane ${m.tmuxPaneId} has exited` : '';
  const pid = l.pidAlive === false ? `its process ${m.pid} is dead` : '';
  return [pane, pid].filter(Boolean).join(' and ') || 'it is not running';
}

function memberFindings(ctx: DoctorContext, handle: Team, m: Member, l: Liveness): Finding[] {
  const team = handle.name;
  // Its process gone too (not only its pane): stopped, so it can be resumed (docs/protocol.md#transcripts-and-resume).
  const resumable = l.alive === false && l.pidAlive !== true;
  if (resumable && m.hibernatedAt !== undefined) return []; // hibernating: gone on purpose, woken by its next message (docs/hibernation.md)
  const kill = `${resumable ? `resume it with: ${resumeCommand(m.name, team)}, or ` : ''}remove it with: swarm kill ${m.name} --team ${team}`;
  if (l.alive === false && m.isActive !== false) {
    return [
      {
        check: 'dead_member',
        severity: 'problem',
        team,
        problem: `member ${m.name} (team ${team}) is marked active but ${describeDeath(m, l)}`,
        fix: `${kill}  (swarm doctor --fix only marks it inactive)`,
        apply: async () => {
          await updateMember(handle, m.name, { isActive: false });
          return `marked ${m.name} (team ${team}) inactive; ${kill}`;
        },
      },
    ];
  }
  if (l.alive === false) {
    return [{ check: 'dead_member', severity: 'warning', team, problem: `member ${m.name} (team ${team}) is inactive and ${describeDeath(m, l)}`, fix: kill }];
  }
  if (l.alive === null && m.tmuxPaneId === '' && m.pid === undefined && ctx.now - m.joinedAt > UNSTARTED_MS) {
    return [
      {
        check: 'unstarted_member',
        severity: 'warning',
        team,
        problem: `member ${m.name} (team ${team}) was added ${formatAge(ctx.now - m.joinedAt)} ago but never got a pane or a process (a failed spawn?)`,
        fix: kill,
      },
    ];
  }
  return [];
}

/**
 * Unfinished tasks of members that are not running: one finding per member. A stopped one (its
 * process gone too, never shut down) keeps its tasks by design until it is resumed: a warning. One
 * whose pane is gone while its process lives cannot be resumed: a problem.
 */
async function taskFindings(handle: Team, gone: readonly { name: string; stopped: boolean }[]): Promise<Finding[]> {
  if (gone.length === 0) return [];
  const team = handle.name;
  const { tasks } = await new TaskList(handle).list();
  const out: Finding[] = [];
  for (const { name, stopped } of gone) {
    const owned = tasks.filter((t) => t.status !== 'completed' && t.owner !== undefined && sameName(t.owner, name));
    if (owned.length === 0) continue;
    const ids = owned.map((t) => `#${t.id}`).join(', ');
    const tasksWord = `task${owned.length === 1 ? '' : 's'}`;
    out.push({
      check: 'dead_owner',
      severity: stopped ? 'warning' : 'problem',
      team,
      problem: stopped
        ? `member ${name} (team ${team}) is stopped (its process and pane are gone) and keeps its unfinished ${tasksWord} ${ids} until it is resumed`
        : `member ${name} (team ${team}) is dead but still owns unfinished ${tasksWord} ${ids}, which nobody else can claim`,
      fix: `${stopped ? `${resumeCommand(name, team)} brings it back with them; ` : ''}swarm doctor --fix gives them back to the list and tells team-lead`,
      apply: async () => {
        const released = await releaseTasksOf(handle, name, 'crashed');
        return released.length === 0 ? `${name}'s tasks were already released` : `released ${released.map((t) => `#${t.id}`).join(', ')} of ${name}; team-lead was told`;
      },
    });
  }
  return out;
}

async function pendingFindings(handle: Team, config: TeamConfig, facts: LivenessFacts): Promise<Finding[]> {
  const { name: team, paths } = handle;
  const out: Finding[] = [];
  for (const id of await pendingIds(paths)) {
    const record = await readPending(paths, id).catch(() => undefined); // a corrupt one shows up as kept aside
    if (!record) continue;
    const member = findMember(config, record.workerName);
    const pid = record.workerPid ?? member?.pid;
    const alive = member ? judgeLiveness(recordedPaneOf(member, pid), facts).alive : false;
    if (alive !== false) continue;
    const why = member ? 'its worker is dead' : `its worker ${record.workerName} is no longer a member`;
    out.push({
      check: 'orphan_permission',
      severity: 'problem',
      team,
      path: paths.pendingFile(id),
      problem: `permission request ${id} (${record.workerName}, ${record.toolName}) is pending but ${why}`,
      fix: `swarm permissions clear ${id} --team ${team}  (swarm doctor --fix does it)`,
      apply: async () => {
        await clearOrphaned(handle, id, { force: true });
        return `cleared permission request ${id}`;
      },
    });
  }
  return out;
}

/**
 * Questions older than UNANSWERED_MS whose worker is not known dead (a dead one's request is an
 * orphan_permission), when no live leader holds the team's lease.
 */
async function unansweredFindings(ctx: DoctorContext, handle: Team, config: TeamConfig, facts: LivenessFacts): Promise<Finding[]> {
  if (liveHolder(config.leadProcess, leaseSelf('console'), ctx.now) !== undefined) return [];
  const team = handle.name;
  const waiting = (worker: string, at: number): boolean => {
    const member = findMember(config, worker);
    return member !== undefined && ctx.now - at > UNANSWERED_MS && judgeLiveness(recordedPaneOf(member), facts).alive !== false;
  };
  const ask = `swarm lead --team ${team} asks it`;
  const noLeader = 'and no leader is running to answer it';
  const requests: PendingRequest[] = [];
  for (const id of await pendingIds(handle.paths)) {
    const record = await readPending(handle.paths, id).catch(() => undefined); // a corrupt one shows up as kept aside
    if (record) requests.push(record);
  }
  // An inbox or permissions directory that cannot be read (a symlink, say) is reported on its own.
  requests.push(...(await inboxOnlyRequests(handle, config).catch(() => [])));
  const out: Finding[] = requests
    .filter((r) => waiting(r.workerName, r.createdAt))
    .map((r) => ({
      check: 'unanswered_question',
      severity: 'problem',
      team,
      problem: `${r.workerName} (team ${team}) has waited ${formatAge(ctx.now - r.createdAt)} for permission to use ${r.toolName} (request ${r.id}) ${noLeader}`,
      fix: `${ask}; or answer it here: swarm approve ${r.id} --team ${team} (or swarm deny ${r.id} --team ${team})`,
    }));
  for (const p of await openPlanRequests(handle, config).catch(() => [])) {
    if (!waiting(p.from, p.at)) continue;
    out.push({
      check: 'unanswered_question',
      severity: 'problem',
      team,
      problem: `${p.from} (team ${team}) has waited ${formatAge(ctx.now - p.at)} for its plan to be approved ${noLeader}`,
      fix: `${ask}; or answer it here: swarm plan ${p.from} --approve --team ${team} (or --reject --feedback "<why>")`,
    });
  }
  return out;
}

export async function checkTeamMembers(ctx: DoctorContext): Promise<CheckResult> {
  const findings: Finding[] = [];
  let teammates = 0;
  const teams = await listTeamDirs(ctx);
  for (const handle of teams) {
    const team = handle.name;
    let config: TeamConfig;
    try {
      config = await readTeam(handle);
    } catch (e) {
      // Never suggest deleting the team: the roster is in that file, and a hand edit or an mv restores it.
      const corrupt = isSwarmError(e, 'corrupt');
      findings.push({
        check: 'team_config',
        severity: corrupt ? 'problem' : 'warning',
        team,
        problem: corrupt ? `team ${team}'s config.json is broken` : `team ${team} has no readable config.json: ${e instanceof Error ? e.message : String(e)}`,
        fix: corrupt ? (e as Error).message : `look at ${handle.paths.dir}; if it is an empty leftover, remove it with: swarm team delete ${team} --force`,
      });
      continue;
    }
    const members = config.members.filter((m) => m.name !== LEAD_NAME);
    teammates += members.length;
    const recorded = members.map((m) => recordedPaneOf(m));
    const facts = await gatherLivenessFacts(recorded, { team: handle, exec: ctx.exec, env: ctx.env, isAlive: ctx.isAlive });
    const lives = members.map((m, i) => judgeLiveness(recorded[i]!, facts));
    members.forEach((m, i) => findings.push(...memberFindings(ctx, handle, m, lives[i]!)));
    const notRunning = members.flatMap((m, i) => {
      const l = lives[i]!;
      const hibernating = l.alive === false && l.pidAlive !== true && m.hibernatedAt !== undefined;
      return l.alive === false && !hibernating ? [{ name: m.name, stopped: l.pidAlive !== true }] : [];
    });
    findings.push(...(await taskFindings(handle, notRunning)));
    findings.push(...(await pendingFindings(handle, config, facts)));
    findings.push(...(await unansweredFindings(ctx, handle, config, facts)));
  }
  const unanswered = `no question waiting over ${UNANSWERED_MS / 60_000} min with no leader`;
  const passed = findings.length === 0 ? [`${teams.length} team${teams.length === 1 ? '' : 's'}, ${teammates} teammates: no dead members, no orphaned requests or tasks, ${unanswered}`] : [];
  return { findings, passed };
}
