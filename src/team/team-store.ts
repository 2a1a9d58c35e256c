// Team files: teams/<team>/config.json and the team's directories (docs/protocol.md#root-layout, docs/protocol.md#team-file),
// its scratchpad included (made with the team, removed with it).
//
// A team is claimed by mkdir of teams/<team>/ (atomic: two creators never share a name); a taken
// name is an error unless the caller asks for a free one (`rename`). Every
// change to config.json is a locked read-modify-write (storage/json-file) that keeps unknown fields.
// Members are validated and made unique (case-insensitive) under that lock; colours are assigned
// round-robin, leader first.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { nextColor } from '../protocol/colors.js';
import { TeamConfigSchema, type Member, type TeamConfig } from '../protocol/config.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { newSessionId } from '../protocol/ids.js';
import { agentId, assertMemberName, assertTeamName, LEAD_NAME, sameName } from '../protocol/names.js';
import { CORRUPT_LABEL, DIR_MODE, ensureDir, fileExists, formatJson, keptAsideAt, writeFileAtomic } from '../storage/atomic.js';
import { mutateJsonFile, readJsonFile, type JsonFileOptions, type MutationOutcome, type RestoredEmpty } from '../storage/json-file.js';
import { teamsDir, type TeamPaths } from './paths.js';
import { ensureScratchpad } from './scratchpad.js';
import { Team } from './team.js';
import { wordSlug } from './slug.js';

export interface CreateTeamOptions {
  name: string;
  description?: string;
  /**
   * Pick a free word-slug name when `name` is taken, instead of failing with `exists`. Only on an
   * explicit request: a silent rename starts a twin team, and with a real key doubles the spend.
   */
  rename?: boolean;
  leadSessionId?: string;
  cwd?: string;
  now?: number;
}

export interface CreatedTeam {
  team: Team;
  config: TeamConfig;
  /** Set when the requested name was taken and another was chosen. */
  renamedFrom?: string;
}

async function makeTeamDirs(p: TeamPaths): Promise<void> {
  for (const d of [p.inboxes, p.pending, p.resolved, p.statusDir, p.logsDir]) await ensureDir(d);
}

async function claimDir(team: Team): Promise<boolean> {
  await ensureDir(teamsDir(team.root));
  try {
    await fs.mkdir(team.paths.dir, { mode: DIR_MODE });
    return true;
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return false;
    throw new SwarmError('io', `cannot create team directory: ${(e as Error).message}`, { cause: e });
  }
}

export async function createTeam(root: string, opts: CreateTeamOptions): Promise<CreatedTeam> {
  assertTeamName(opts.name);
  let team = new Team(root, opts.name);
  let renamedFrom: string | undefined;
  if (!(await claimDir(team))) {
    if (!opts.rename) {
      throw new SwarmError('exists', `team "${team.name}" already exists; use it (--team ${team.name}), delete it (swarm team delete ${team.name}), or pass --rename to create one under a free name`);
    }
    renamedFrom = team.name;
    for (let i = 0; ; i++) {
      team = new Team(root, wordSlug());
      if (await claimDir(team)) break;
      if (i > 50) throw new SwarmError('exists', 'could not find a free team name; pass one explicitly');
    }
  }
  const now = opts.now ?? Date.now();
  const { name, paths: p } = team;
  try {
    await makeTeamDirs(p);
    await ensureScratchpad(team);
  } catch (e) {
    await fs.rm(p.dir, { recursive: true, force: true }); // the name was claimed above: ours to give back
    throw e;
  }
  const lead: Member = {
    agentId: agentId(LEAD_NAME, name),
    name: LEAD_NAME,
    agentType: LEAD_NAME,
    color: newMemberColor([]),
    joinedAt: now,
    tmuxPaneId: '',
    cwd: opts.cwd ?? process.cwd(),
    subscriptions: [],
  };
  const config: TeamConfig = {
    name,
    ...(opts.description ? { description: opts.description } : {}),
    createdAt: now,
    leadAgentId: lead.agentId,
    leadSessionId: opts.leadSessionId ?? newSessionId(),
    members: [lead],
  };
  await writeFileAtomic(p.config, formatJson(config));
  return renamedFrom ? { team, config, renamedFrom } : { team, config };
}

/**
 * A team's config.json that does not parse is never moved or rewritten: the team stays listed and
 * every command says what is wrong and how to mend it by hand (an emptied one excepted: below).
 */
function corruptConfig(team: Team, problem: string): SwarmError {
  const file = team.paths.config;
  return new SwarmError(
    'corrupt',
    `team "${team.name}": ${file} does not parse (${problem}); swarm leaves it untouched. Mend it by hand (jq . '${file}' shows where it breaks), then retry`,
  );
}

/**
 * config.json found empty for good: Claude Code rewrites it in place (truncate, then write) without
 * awaiting the write, and a teammate of its that exits in between leaves it empty. Put back from
 * what this process last read (storage/json-file.ts restoreEmptyInPlace), and said.
 */
function restoredConfig(team: Team, r: RestoredEmpty): void {
  const ago = Math.round((Date.now() - r.seenAt) / 1000);
  process.stderr.write(
    `swarm: warning: team "${team.name}": ${r.file} was empty (a writer stopped between emptying and writing it); put back the copy this command read ${ago} s ago, empty file kept as ${r.keptAs}\n`,
  );
}

function keepConfigInPlace(team: Team): NonNullable<JsonFileOptions<TeamConfig>['keepInPlace']> {
  return { corruptError: (problem) => corruptConfig(team, problem), restoreEmpty: (r) => restoredConfig(team, r) };
}

function configOptions(team: Team): JsonFileOptions<TeamConfig> {
  return {
    schema: TeamConfigSchema,
    init: () => {
      throw new SwarmError('not_found', 'team config.json is missing');
    },
    keepInPlace: keepConfigInPlace(team),
  };
}

function notFound(team: string): SwarmError {
  return new SwarmError('not_found', `no team "${team}"; see 'swarm team list', or create it with 'swarm team create ${team}'`);
}

/** Copies of config.json kept aside (`config.json.corrupt-<ms>`, e.g. by an older swarm), newest first. */
async function keptConfigs(team: Team): Promise<string[]> {
  const base = path.basename(team.paths.config);
  const names = await fs.readdir(team.paths.dir).catch(() => [] as string[]);
  return names
    .flatMap((n) => {
      const at = keptAsideAt(n, CORRUPT_LABEL, base);
      return at === undefined ? [] : [{ n, at }];
    })
    .sort((a, b) => b.at - a.at)
    .map(({ n }) => path.join(team.paths.dir, n));
}

/** A team directory without config.json but with a kept copy: say how to put it back. */
async function missingConfig(team: Team): Promise<SwarmError> {
  const [kept] = await keptConfigs(team);
  if (kept === undefined) return notFound(team.name);
  return new SwarmError(
    'corrupt',
    `team "${team.name}" has no config.json, but a copy was kept aside as ${kept}: check it (jq . '${kept}'), mend it if needed, and put it back with: mv '${kept}' '${team.paths.config}'`,
  );
}

/** Read a team's config.json (parsed). Throws not_found / corrupt (never moves or rewrites it). */
export async function readTeam(team: Team): Promise<TeamConfig> {
  const config = await readJsonFile(team.paths.config, { schema: TeamConfigSchema, keepInPlace: keepConfigInPlace(team) });
  if (!config) throw await missingConfig(team);
  return config;
}

/** True when the team's directory has a config.json, or a kept copy of one (the team is not gone, only broken). */
export async function teamExists(team: Team): Promise<boolean> {
  try {
    await fs.access(team.paths.config);
    return true;
  } catch {
    return (await keptConfigs(team)).length > 0;
  }
}

/** Locked read-modify-write of config.json; `fn` may mutate and return a result. */
export async function updateTeam<R>(team: Team, fn: (config: TeamConfig) => R | Promise<R>): Promise<R> {
  return mutateTeam(team, async (config) => ({ write: config, result: await fn(config) }));
}

async function mutateTeam<R>(team: Team, fn: (config: TeamConfig) => MutationOutcome<TeamConfig, R> | Promise<MutationOutcome<TeamConfig, R>>): Promise<R> {
  if (!(await fileExists(team.paths.config))) throw await missingConfig(team);
  return mutateJsonFile(team.paths.config, configOptions(team), fn);
}

export interface TeamSummary {
  name: string;
  description?: string;
  members: number;
  createdAt?: number;
  problem?: string;
}

/** Every team directory under the root, by name, with its config.json or the problem reading it. */
export async function readTeams(root: string): Promise<({ name: string; config: TeamConfig } | { name: string; problem: string })[]> {
  let names: string[];
  try {
    names = await fs.readdir(teamsDir(root));
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const out: ({ name: string; config: TeamConfig } | { name: string; problem: string })[] = [];
  for (const name of names.sort()) {
    try {
      assertTeamName(name);
    } catch {
      continue; // not a team directory swarm could have made
    }
    try {
      out.push({ name, config: await readTeam(new Team(root, name)) });
    } catch (e) {
      out.push({ name, problem: (e as Error).message });
    }
  }
  return out;
}

export async function listTeams(root: string): Promise<TeamSummary[]> {
  return (await readTeams(root)).map((t) =>
    'config' in t
      ? { name: t.name, ...(t.config.description ? { description: t.config.description } : {}), members: t.config.members.length - 1, createdAt: t.config.createdAt }
      : { name: t.name, members: 0, problem: t.problem },
  );
}

export async function deleteTeam(team: Team): Promise<void> {
  try {
    await fs.access(team.paths.dir);
  } catch {
    throw notFound(team.name);
  }
  await fs.rm(team.paths.dir, { recursive: true, force: true });
  // Its task list goes with it, as Claude Code's team cleanup removes tasks/<team>/ (a new team of
  // the same name then starts from task 1, not from the old one's leftovers).
  await fs.rm(team.paths.tasks.dir, { recursive: true, force: true });
  // And its scratchpad (docs/scratchpad.md). rm removes a link there, never what it points to.
  await fs.rm(team.paths.scratchpad, { recursive: true, force: true });
}

export function findMember(config: TeamConfig, name: string): Member | undefined {
  return config.members.find((m) => sameName(m.name, name));
}

/** The member called `name` (case-insensitive), or a not_found error listing who exists. */
export function requireMember(config: TeamConfig, name: string): Member {
  const m = findMember(config, name);
  if (!m) {
    const names = config.members.map((x) => x.name).join(', ');
    throw new SwarmError('not_found', `no member "${name}" in team "${config.name}" (members: ${names})`);
  }
  return m;
}

export interface NewMember {
  name: string;
  agentType?: string;
  model?: string;
  prompt?: string;
  color?: string;
  planModeRequired?: boolean;
  cwd?: string;
  backendType?: string;
  mode?: string;
  runtime?: string;
  isActive?: boolean;
}

/**
 * The colour a member joining `roster` gets unless it brings its own (the lead: an empty roster):
 * the first palette colour nobody has. `launch --dry-run` shows a new team's colours with it.
 */
export function newMemberColor(roster: readonly Pick<Member, 'color'>[]): string {
  return nextColor(roster.map((m) => m.color));
}

/** Add a member under the config lock: validated, unique, coloured. Returns the stored member. */
export async function addMember(team: Team, member: NewMember, now = Date.now()): Promise<Member> {
  assertMemberName(member.name);
  return updateTeam(team, (config) => {
    if (findMember(config, member.name)) {
      throw new SwarmError('exists', `member "${member.name}" already exists in team "${team.name}"; pick another name`);
    }
    const stored: Member = {
      ...member,
      agentId: agentId(member.name, config.name),
      color: member.color ?? newMemberColor(config.members),
      joinedAt: now,
      tmuxPaneId: '',
      cwd: member.cwd ?? process.cwd(),
      subscriptions: [],
    };
    config.members.push(stored);
    return stored;
  });
}

/**
 * Apply `patch` to a member under the config lock; returns the updated member. The patch may be
 * worked out there, from the member as it is; one that changes nothing writes nothing.
 */
export async function updateMember(team: Team, name: string, patch: Partial<Member> | ((m: Member) => Partial<Member>)): Promise<Member> {
  return mutateTeam(team, (config) => {
    const m = requireMember(config, name);
    const before = JSON.stringify(m);
    Object.assign(m, typeof patch === 'function' ? patch(m) : patch, { name: m.name, agentId: m.agentId });
    return { write: JSON.stringify(m) === before ? undefined : config, result: m };
  });
}

/**
 * config.json as its watchers care about it: everything but the lead lease, whose holder rewrites
 * the file every few seconds (team/lead-lease.ts) without changing anything they show or act on.
 */
export function rosterDigest(config: TeamConfig): string {
  const { leadProcess: _lease, ...rest } = config;
  return JSON.stringify(rest);
}

/** The team's hibernateAfter (docs/hibernation.md), when given; undefined leaves it as it is. */
export async function setHibernateAfter(team: Team, ms: number | undefined): Promise<void> {
  if (ms === undefined) return;
  await updateTeam(team, (config) => {
    config.swarm = { ...config.swarm, hibernateAfterMs: ms };
  });
}

/** Remove a member (never the leader); returns it, or undefined if it was not there. */
export async function removeMember(team: Team, name: string): Promise<Member | undefined> {
  if (sameName(name, LEAD_NAME)) throw new SwarmError('invalid_input', 'the team lead cannot be removed; delete the team instead');
  return updateTeam(team, (config) => {
    const i = config.members.findIndex((m) => sameName(m.name, name));
    if (i < 0) return undefined;
    const [removed] = config.members.splice(i, 1);
    return removed;
  });
}
