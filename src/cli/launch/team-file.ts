// Team files for `swarm launch <team.yaml>` (docs/protocol.md#cli): YAML, parsed with the `yaml` package (which
// keeps every node's source range) and validated with zod. Every error names the file, the line
// and the field, e.g. `team.yaml:7: members[1].name: invalid member name "a/b": ...`.
//
// Format (unknown keys are errors, so a typo never silently drops a setting):
//   name: review-squad                 team name (docs/protocol.md#names-and-ids)
//   description: ...                   optional
//   backend: auto|tmux|iterm2|in-process|ssh optional (default auto)
//   hosts: [build1, ci@build2:2222]    optional: machines for the members without their own host,
//                                      round-robin in member order (the ssh backend)
//   permissionMode: default|acceptEdits|bypassPermissions|plan   optional, inherited by members
//   model: ...                         optional, default model of the members
//   hibernateAfter: 10m                optional: idle this long, a swarm teammate hibernates (docs/hibernation.md)
//   members:                           at least one
//     - name: alice                    member name, unique case-insensitively, not reserved
//       prompt: ...                    the initial prompt (first message from team-lead)
//       model, agentType, planModeRequired, permissionMode, runtime: swarm|claude   optional
//       isolation: worktree            optional: its own git worktree of the cwd's repository
//       host: [user@]host[:port]       optional: run it on that machine over ssh (its cwd is checked there)
//       cwd: ../app                    optional; relative paths are resolved against the YAML file's
//                                      directory (`~` is not expanded)
//   tasks:                             optional: the shared task list, created before anyone is spawned
//     - subject: Write the parser      required
//       description: ...               optional
//       owner: alice                   optional: a member of this file (told with a task_assignment)
//       blockedBy: [1, "Write the parser"]   optional: other tasks of this list, by 1-based position
//                                      or by subject (a subject must name exactly one task); no cycles
// `parseTeamFile(file, machine)` also checks what the members need from this machine (each cwd is a
// directory, `claude` is on PATH for runtime: claude, an isolation: worktree member's cwd is in a git
// repository with a commit and its branch is free), so that launch fails before creating anything.
import { promises as fs } from 'node:fs';
import { parseDuration } from '../../protocol/duration.js';
import path from 'node:path';
import { LineCounter, isMap, parseDocument, type Document } from 'yaml';
import * as z from 'zod';
import { PermissionModeSchema } from '../../protocol/config.js';
import { errnoCode, SwarmError } from '../../protocol/errors.js';
import { assertMemberName, assertTeamName, LEAD_NAME } from '../../protocol/names.js';
import { nearest } from '../../protocol/spelling.js';
import { TASK_LIMITS } from '../../protocol/task.js';
import { isDirectory } from '../../storage/atomic.js';
import { findCycle, type Edge } from '../../tasks/index.js';
import { parseDestination } from '../../backends/ssh/connection.js';
import { resolveClaude, type Env } from '../../teammates/command-line.js';
import { ISOLATIONS } from '../../teammates/spawn-choices.js';
import { planWorktree } from '../../teammates/worktree.js';

/** A zod check that runs one of protocol/names' assertions and keeps its message. */
function nameRule(assert: (name: string) => string): (value: string, ctx: z.RefinementCtx) => void {
  return (value, ctx) => {
    try {
      assert(value);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
    }
  };
}

function hostRule(value: string, ctx: z.RefinementCtx): void {
  try {
    parseDestination(value);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message.replace(/^--host: /, '') : String(e) });
  }
}

function durationRule(value: string | number, ctx: z.RefinementCtx): void {
  try {
    parseDuration(value, 'hibernateAfter');
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message.replace(/^hibernateAfter: /, '') : String(e) });
  }
}

const nonEmpty = z.string().refine((s) => s.trim() !== '', 'expected a non-empty string');

export const TeamFileMemberSchema = z.strictObject({
  name: z.string().superRefine(nameRule(assertMemberName)),
  prompt: nonEmpty,
  model: nonEmpty.optional(),
  agentType: nonEmpty.optional(),
  planModeRequired: z.boolean().optional(),
  permissionMode: PermissionModeSchema.optional(),
  cwd: nonEmpty.optional(),
  runtime: z.enum(['swarm', 'claude']).optional(),
  isolation: z.enum(ISOLATIONS).optional(),
  host: z.string().superRefine(hostRule).optional(),
});
export type TeamFileMember = z.infer<typeof TeamFileMemberSchema>;

/** A task text within its cap (TASK_LIMITS), checked with the rest of the file so no task is created before a refusal. */
const capped = (s: z.ZodString, field: 'subject' | 'description' | 'activeForm'): z.ZodString => s.max(TASK_LIMITS[field], `expected at most ${TASK_LIMITS[field]} characters`);

export const TeamFileTaskSchema = z.strictObject({
  subject: capped(nonEmpty, 'subject'),
  description: capped(z.string(), 'description').optional(),
  activeForm: capped(nonEmpty, 'activeForm').optional(),
  owner: nonEmpty.optional(),
  blockedBy: z.array(z.union([z.int().min(1, 'expected a 1-based position in tasks'), nonEmpty])).optional(),
});
export type TeamFileTask = z.infer<typeof TeamFileTaskSchema>;

const TeamFileObjectSchema = z.strictObject({
  name: z.string().superRefine(nameRule(assertTeamName)),
  description: z.string().optional(),
  backend: z.enum(['auto', 'tmux', 'iterm2', 'in-process', 'ssh']).optional(),
  hosts: z.array(z.string().superRefine(hostRule)).min(1, 'expected at least one host').optional(),
  permissionMode: PermissionModeSchema.optional(),
  model: nonEmpty.optional(),
  hibernateAfter: z.union([z.string(), z.number()]).superRefine(durationRule).optional(),
  members: z.array(TeamFileMemberSchema).min(1, 'expected at least one member'),
  tasks: z.array(TeamFileTaskSchema).optional(),
});

// Runs even when other fields have issues (`when`), so every problem is reported in one go; the
// value may then be partly invalid, hence the defensive reads.
export const TeamFileSchema = TeamFileObjectSchema.superRefine(
  (team, ctx) => {
    const members: unknown = team.members;
    if (!Array.isArray(members)) return;
    const seen = new Map<string, { index: number; name: string }>();
    members.forEach((m: unknown, i) => {
      const name = m !== null && typeof m === 'object' && 'name' in m && typeof m.name === 'string' ? m.name : undefined;
      if (name === undefined) return;
      const first = seen.get(name.toLowerCase());
      if (first === undefined) seen.set(name.toLowerCase(), { index: i, name });
      else {
        ctx.addIssue({
          code: 'custom',
          path: ['members', i, 'name'],
          message: `duplicate member name "${name}": members[${first.index}] is already "${first.name}" (names are case-insensitive)`,
        });
      }
    });
    taskProblems(team, ctx);
    hostProblems(team, ctx);
  },
  { when: () => true },
);

/** Hosts go with the ssh backend (or auto); `backend: ssh` needs a host for every member. */
function hostProblems(team: { backend?: unknown; hosts?: unknown; members?: unknown }, ctx: z.RefinementCtx): void {
  const members = Array.isArray(team.members) ? (team.members as { host?: unknown }[]) : [];
  const pooled = Array.isArray(team.hosts) && team.hosts.length > 0;
  const anyHost = pooled || members.some((m) => typeof m?.host === 'string');
  if (anyHost && team.backend !== undefined && team.backend !== 'auto' && team.backend !== 'ssh') {
    ctx.addIssue({ code: 'custom', path: ['backend'], message: `host/hosts run members over ssh, not backend ${String(team.backend)}; use backend: ssh (or leave it out)` });
  }
  if (team.backend === 'ssh' && !pooled) {
    members.forEach((m, i) => {
      if (typeof m?.host !== 'string') ctx.addIssue({ code: 'custom', path: ['members', i], message: 'backend ssh: give this member a host, or the file a hosts: list' });
    });
  }
}

/** Deal the `hosts` pool out to the members without their own `host` (round-robin, in member order): once, at parse. */
function dealHosts(team: TeamFile): void {
  const pool = team.hosts ?? [];
  let next = 0;
  for (const m of team.members) if (m.host === undefined && pool.length > 0) m.host = pool[next++ % pool.length];
}

/** The machine of each member, in order (the pool was dealt at parse); undefined = this one. */
export function memberHosts(file: Pick<TeamFile, 'members'>): (string | undefined)[] {
  return file.members.map((m) => m.host);
}

/** The 0-based positions a task's `blockedBy` names (a position or a unique subject), or the problem. */
function blockerIndex(ref: number | string, tasks: readonly { subject?: unknown }[]): number | string {
  if (typeof ref === 'number') return ref <= tasks.length ? ref - 1 : `no task ${ref}: tasks has ${tasks.length} entr${tasks.length === 1 ? 'y' : 'ies'}`;
  const found = tasks.flatMap((t, i) => (t.subject === ref ? [i] : []));
  if (found.length === 1) return found[0]!;
  return found.length === 0 ? `no task with subject "${ref}"` : `subject "${ref}" names ${found.length} tasks; use its 1-based position`;
}

/** Owners on the roster, blockers that exist, and no cycle among the file's tasks. */
function taskProblems(team: { members?: unknown; tasks?: unknown }, ctx: z.RefinementCtx): void {
  if (!Array.isArray(team.tasks)) return;
  const tasks = team.tasks as { subject?: unknown; owner?: unknown; blockedBy?: unknown }[];
  const members = Array.isArray(team.members) ? (team.members as { name?: unknown }[]).map((m) => String(m?.name ?? '').toLowerCase()) : [];
  const edges: Edge[] = []; // blocker → blocked, as the task list's own dependency check takes them
  tasks.forEach((t, i) => {
    if (t === null || typeof t !== 'object') return;
    if (typeof t.owner === 'string' && t.owner !== LEAD_NAME && !members.includes(t.owner.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: ['tasks', i, 'owner'], message: `"${t.owner}" is not a member of this team file (members: ${members.join(', ')})` });
    }
    if (!Array.isArray(t.blockedBy)) return;
    (t.blockedBy as unknown[]).forEach((ref, j) => {
      if (typeof ref !== 'number' && typeof ref !== 'string') return;
      const at = blockerIndex(ref, tasks);
      if (typeof at === 'string') ctx.addIssue({ code: 'custom', path: ['tasks', i, 'blockedBy', j], message: at });
      else if (at === i) ctx.addIssue({ code: 'custom', path: ['tasks', i, 'blockedBy', j], message: 'a task cannot be blocked by itself' });
      else edges.push({ from: String(at), to: String(i) });
    });
  });
  // findCycle gives the cycle in "blocks" order; reversed, each position waits for the next.
  const cycle = findCycle([], edges)?.cycle.map(Number).reverse();
  if (cycle) {
    ctx.addIssue({
      code: 'custom',
      path: ['tasks', cycle[0]!, 'blockedBy'],
      message: `the tasks wait for each other in a circle (${cycle.map((i) => i + 1).join(' → ')}): none could ever start`,
    });
  }
}

/** Each task's blockers as 0-based positions in `tasks` (the file is valid: every reference resolves). */
export function taskBlockers(tasks: readonly TeamFileTask[]): number[][] {
  return tasks.map((t) => [...new Set((t.blockedBy ?? []).map((ref) => blockerIndex(ref, tasks) as number))]);
}
/** A parsed team file; member `cwd`s are absolute. */
export type TeamFile = z.infer<typeof TeamFileSchema>;

type PathKey = PropertyKey;

/** `members[1].name` from ['members', 1, 'name']. */
export function formatPath(p: readonly PathKey[]): string {
  return p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? String(k) : `.${String(k)}`)).join('');
}

/** The 1-based line of the deepest node that exists along `p` (the key's line for a map entry). */
function lineOf(doc: Document, lc: LineCounter, p: readonly PathKey[]): number {
  for (let n = p.length; n >= 0; n--) {
    const prefix = p.slice(0, n) as (string | number)[];
    const node = n === 0 ? doc.contents : doc.getIn(prefix, true);
    if (node && typeof node === 'object' && 'range' in node && Array.isArray(node.range)) {
      if (n > 0 && typeof p[n - 1] === 'string') {
        // Point at the key (`name:`) rather than a value that may start on a later line.
        const parent = n === 1 ? doc.contents : doc.getIn(p.slice(0, n - 1) as (string | number)[], true);
        if (isMap(parent)) {
          const pair = parent.items.find((it) => it.key !== null && typeof it.key === 'object' && 'value' in it.key && it.key.value === p[n - 1]);
          const keyRange = pair?.key !== null && typeof pair?.key === 'object' && 'range' in pair.key ? pair.key.range : undefined;
          if (Array.isArray(keyRange)) return lc.linePos(keyRange[0] as number).line;
        }
      }
      return lc.linePos(node.range[0] as number).line;
    }
  }
  return 1;
}

function valueAt(data: unknown, p: readonly PathKey[]): unknown {
  let v: unknown = data;
  for (const k of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

const KNOWN_KEYS: Record<'team' | 'member' | 'task', readonly string[]> = {
  team: Object.keys(TeamFileObjectSchema.shape),
  member: Object.keys(TeamFileMemberSchema.shape),
  task: Object.keys(TeamFileTaskSchema.shape),
};

/** "did you mean `planModeRequired`?" for a near-miss key, else the list of known keys. */
function unknownKeyHint(key: string, known: readonly string[]): string {
  const best = nearest(key, known);
  if (best !== undefined) return `did you mean "${best}"?`;
  return `expected one of: ${known.join(', ')}`;
}

function issueLines(issue: z.core.$ZodIssue, data: unknown, doc: Document, lc: LineCounter, source: string): string[] {
  if (issue.code === 'unrecognized_keys') {
    const known = issue.path.length === 0 ? KNOWN_KEYS.team : issue.path[0] === 'tasks' ? KNOWN_KEYS.task : KNOWN_KEYS.member;
    return issue.keys.map((key) => {
      const p = [...issue.path, key];
      return `${source}:${lineOf(doc, lc, p)}: ${formatPath(p)}: unknown field (${unknownKeyHint(key, known)})`;
    });
  }
  const where = issue.path.length === 0 ? '(top level)' : formatPath(issue.path);
  const missing = issue.code === 'invalid_type' && valueAt(data, issue.path) === undefined;
  const text = missing ? `required field is missing (expected ${issue.expected})` : issue.message;
  return [`${source}:${lineOf(doc, lc, issue.path)}: ${where}: ${text}`];
}

function invalid(lines: string[]): SwarmError {
  const more = lines.length > 1 ? ` (+${lines.length - 1} more)` : '';
  return new SwarmError('invalid_input', [`${lines[0]}${more}`, ...lines.slice(1)].join('\n'));
}

/** A parsed team file and where each of its fields is (`team.yaml:9: members[1].cwd`). */
interface Located {
  team: TeamFile;
  at(p: readonly PathKey[]): string;
}

function parseLocated(text: string, sourceName: string, baseDir: string): Located {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw invalid(
      doc.errors.map((e) => {
        const line = e.linePos?.[0]?.line ?? lc.linePos(e.pos[0]).line;
        return `${sourceName}:${line}: YAML syntax: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`;
      }),
    );
  }
  const data: unknown = doc.toJS();
  if (data === null || data === undefined || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid([`${sourceName}:1: expected a mapping with "name" and "members", got ${data === null || data === undefined ? 'an empty file' : Array.isArray(data) ? 'a list' : typeof data}`]);
  }
  const parsed = TeamFileSchema.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.flatMap((i) => issueLines(i, data, doc, lc, sourceName));
    const lineNo = (l: string): number => Number(/:(\d+):/.exec(l.slice(sourceName.length))?.[1] ?? 0);
    throw invalid(lines.sort((a, b) => lineNo(a) - lineNo(b)));
  }
  const team = parsed.data;
  const at = (p: readonly PathKey[]): string => `${sourceName}:${lineOf(doc, lc, p)}: ${formatPath(p)}`;
  const problems: string[] = [];
  team.members.forEach((m, i) => {
    if (m.cwd === undefined) return;
    if (m.cwd.startsWith('~')) {
      problems.push(`${at(['members', i, 'cwd'])}: "${m.cwd}": ~ is not expanded; use an absolute path or one relative to the team file`);
    }
    m.cwd = path.resolve(baseDir, m.cwd);
  });
  if (problems.length > 0) throw invalid(problems);
  dealHosts(team);
  return { team, at };
}

/**
 * Parse and validate a team file's text. `sourceName` prefixes every error (`team.yaml:7: ...`);
 * relative member `cwd`s are resolved against `baseDir`. Throws SwarmError('invalid_input') whose
 * message has one line per problem.
 */
export function parseTeamFileText(text: string, sourceName: string, baseDir: string): TeamFile {
  return parseLocated(text, sourceName, baseDir).team;
}

/** What the members need from this machine: checked before launch creates anything. */
export interface MachineChecks {
  /** The environment the teammates get (its PATH finds `claude`). */
  env: Env;
  /** Where members without a cwd run (launch's cwd). */
  cwd: string;
  /** Tests: the PATH lookup of `claude`. */
  which?: (command: string, env: Env) => string | undefined;
}

/** Each member's cwd is a directory, a `runtime: claude` member finds `claude` (on its own machine: checked there), a worktree member can have one: one line per problem. */
async function machineProblems({ team, at }: Located, machine: MachineChecks): Promise<string[]> {
  const hosts = memberHosts(team);
  const problems: string[] = [];
  for (const [i, m] of team.members.entries()) {
    if (m.isolation === 'worktree' && (m.cwd === undefined || isDirectory(m.cwd))) {
      const cwd = m.cwd ?? machine.cwd;
      await planWorktree(team.name, m.name, cwd).catch((e: unknown) => problems.push(`${at(['members', i, 'isolation'])}: member "${m.name}": ${e instanceof Error ? e.message : String(e)}`));
    }
    // A member on another machine has its cwd checked there, at spawn.
    if (m.cwd !== undefined && hosts[i] === undefined && !isDirectory(m.cwd)) {
      problems.push(`${at(['members', i, 'cwd'])}: member "${m.name}": ${m.cwd} is not a directory; create it or fix the path`);
    }
    if (m.runtime === 'claude' && hosts[i] === undefined) {
      try {
        resolveClaude(machine.env, machine.which);
      } catch {
        problems.push(`${at(['members', i, 'runtime'])}: member "${m.name}": runtime claude needs the claude CLI (Claude Code) on PATH; install it or use runtime: swarm`);
      }
    }
  }
  return problems;
}

/**
 * Read and parse a team file; errors are prefixed with `file` as given. With `machine`, also check
 * what the members need from this machine, so that launch fails before it creates anything.
 */
export async function parseTeamFile(file: string, machine?: MachineChecks): Promise<TeamFile> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') throw new SwarmError('not_found', `no team file at ${file}; see examples/ for the format`, { cause: e });
    throw new SwarmError('io', `cannot read team file ${file}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  const located = parseLocated(text, file, path.dirname(path.resolve(file)));
  const problems = machine === undefined ? [] : await machineProblems(located, machine);
  if (problems.length > 0) throw invalid(problems);
  return located.team;
}
