// `swarm doctor`: teammate processes config.json does not know of (Linux, from /proc). A process
// whose command line carries `--agent-id <name>@<team>` of a member of a team under this root (the
// CLAUDE_CONFIG_DIR in its /proc/<pid>/environ resolves here, sessions.ts) while neither that
// member's config.json pid nor its status file's pid is the process or one of its ancestors: a
// second copy (two resumes at once, before resume refused that) or an orphan, reading the same
// inbox, that `swarm kill` and shutdown never reach. Only the topmost of such a process tree is
// reported. A problem whose fix is the plain `kill`; `--fix` leaves it (which copy holds the work
// is for a person to judge). Skipped: members on another machine (`host`), members with no pid in
// config.json (Claude Code's own: their teammate runs under the pane's shell), processes whose
// environment is not ours to read, and the whole check where /proc cannot be read (macOS).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { LEAD_NAME } from '../../protocol/names.js';
import { StatusFileSchema } from '../../protocol/status.js';
import { TEAMMATE_FLAGS } from '../../protocol/teammate-flags.js';
import { parseText } from '../../storage/json-file.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { listTeamDirs, type CheckResult, type DoctorContext, type Finding } from './machine-checks.js';
import { processRoot } from './sessions.js';

const PROC = '/proc';
const AGENT_ID = `--${TEAMMATE_FLAGS.agentId.flag}`;

/** The `--agent-id` a command line carries (`--agent-id x` or `--agent-id=x`), if any. */
export function agentIdArg(argv: readonly string[]): string | undefined {
  for (const [i, word] of argv.entries()) {
    if (word === AGENT_ID) return argv[i + 1];
    if (word.startsWith(`${AGENT_ID}=`)) return word.slice(AGENT_ID.length + 1);
  }
  return undefined;
}

interface ProcessTable {
  /** pid → its parent's pid. */
  parent: Map<number, number>;
  /** pid → the agent id on its command line (only processes that carry one). */
  agentIds: Map<number, string>;
}

/** Every process's parent and agent id, from /proc; undefined without a readable /proc. */
async function readProcessTable(): Promise<ProcessTable | undefined> {
  const names = await fs.readdir(PROC).catch(() => undefined);
  if (names === undefined) return undefined;
  const table: ProcessTable = { parent: new Map(), agentIds: new Map() };
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    try {
      const stat = await fs.readFile(path.join(PROC, name, 'stat'), 'utf8');
      table.parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      const id = agentIdArg((await fs.readFile(path.join(PROC, name, 'cmdline'), 'utf8')).split('\0'));
      if (id !== undefined) table.agentIds.set(pid, id);
    } catch {
      // exited meanwhile
    }
  }
  return table;
}

/** `pid` and its ancestors, nearest first. */
function lineage(table: ProcessTable, pid: number): number[] {
  const out: number[] = [];
  for (let p: number | undefined = pid; p !== undefined && p > 0 && !out.includes(p); p = table.parent.get(p)) out.push(p);
  return out;
}

/** The pid in a member's status file (swarm teammates write their own), if it parses. */
async function statusPid(team: Team, name: string): Promise<number | undefined> {
  const raw = await fs.readFile(team.paths.status(name), 'utf8').catch(() => undefined);
  const parsed = raw === undefined ? undefined : parseText(raw, StatusFileSchema);
  return parsed?.ok === true ? parsed.value.pid : undefined;
}

export async function checkStrayTeammates(ctx: DoctorContext): Promise<CheckResult> {
  // Processes first, then the records: a teammate that records itself meanwhile is then known.
  const table = await readProcessTable();
  if (table === undefined) return { findings: [], passed: [] };
  const findings: Finding[] = [];
  for (const handle of await listTeamDirs(ctx)) {
    const config = await readTeam(handle).catch(() => undefined); // an unreadable config is team-checks' finding
    if (config === undefined) continue;
    for (const m of config.members) {
      // No pid recorded (a member Claude Code made: its teammate runs under its pane's shell): nothing to compare.
      if (m.name === LEAD_NAME || m.host !== undefined || m.pid === undefined) continue;
      const recorded = [m.pid, await statusPid(handle, m.name)].filter((p): p is number => p !== undefined);
      const carriers = [...table.agentIds].filter(([, id]) => id === m.agentId).map(([pid]) => pid);
      const strays = carriers.filter((pid) => !lineage(table, pid).some((p) => recorded.includes(p)) && processRoot(pid) === ctx.root);
      // The topmost of a tree: a stray whose ancestor is a stray too is part of that one.
      for (const pid of strays.filter((s) => !lineage(table, s).slice(1).some((p) => strays.includes(p)))) {
        const known = `pid ${[...new Set(recorded)].join(' and ')}`;
        findings.push({
          check: 'stray_teammate',
          severity: 'problem',
          team: handle.name,
          problem: `process ${pid} runs as ${m.name} (team ${handle.name}: ${AGENT_ID} ${m.agentId} on its command line) but config.json records ${known} for ${m.name}: a second copy or an orphan, reading its inbox, that swarm kill and shutdown never reach`,
          fix: `look at it (ps -o pid,ppid,args -p ${pid}), then end it: kill ${pid}  (swarm doctor --fix leaves it)`,
        });
      }
    }
  }
  const passed = findings.length === 0 ? ['no teammate processes unknown to config.json'] : [];
  return { findings, passed };
}
