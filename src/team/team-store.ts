// Team files: teams/<team>/config.json and the team's directories (SPEC §3, §3.2).
//
// A team is claimed by mkdir of teams/<team>/ (atomic: two creators never share a name). Every
// change to config.json is a locked read-modify-write (storage/json-file) that keeps unknown fields.
// Members are validated and made unique (case-insensitive) under that lock; colours are assigned
// round-robin, leader first.
import { promises as fs } from 'node:fs';
import { nextColor } from '../protocol/colors.js';
import { TeamConfigSchema, type Member, type TeamConfig } from '../protocol/config.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { newSessionId } from '../protocol/ids.js';
import { agentId, assertMemberName, assertTeamName, LEAD_NAME, sameName } from '../protocol/names.js';
import { ensureDir, formatJson, writeFileAtomic } from '../storage/atomic.js';
import { mutateJsonFile, readJsonFile, type JsonFileOptions } from '../storage/json-file.js';
import { teamPaths, teamsDir, type TeamPaths } from './paths.js';
import { wordSlug } from './slug.js';

export interface CreateTeamOptions {
  name: string;
  description?: string;
  /** Fail instead of picking a free word-slug name when `name` is taken. */
  noRename?: boolean;
  leadSessionId?: string;
  cwd?: string;
  now?: number;
}

export interface CreatedTeam {
  config: TeamConfig;
  /** Set when the requested name was taken and another was chosen. */
  renamedFrom?: string;
}

async function makeTeamDirs(p: TeamPaths): Promise<void> {
  for (const d of [p.inboxes, p.pending, p.resolved, p.statusDir, p.logsDir]) await ensureDir(d);
}

async function claimDir(root: string, name: string): Promise<boolean> {
  await ensureDir(teamsDir(root));
  try {
    await fs.mkdir(teamPaths(root, name).dir, { mode: 0o700 });
    return true;
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return false;
    throw new SwarmError('io', `cannot create team directory: ${(e as Error).message}`, { cause: e });
  }
}

export async function createTeam(root: string, opts: CreateTeamOptions): Promise<CreatedTeam> {
  assertTeamName(opts.name);
  let name = opts.name;
  let renamedFrom: string | undefined;
  if (!(await claimDir(root, name))) {
    if (opts.noRename) {
      throw new SwarmError('exists', `team "${name}" already exists; pick another name, or drop --no-rename to get a free one`);
    }
    renamedFrom = name;
    for (let i = 0; ; i++) {
      name = wordSlug();
      if (await claimDir(root, name)) break;
      if (i > 50) throw new SwarmError('exists', 'could not find a free team name; pass one explicitly');
    }
  }
  const now = opts.now ?? Date.now();
  const p = teamPaths(root, name);
  await makeTeamDirs(p);
  const lead: Member = {
    agentId: agentId(LEAD_NAME, name),
    name: LEAD_NAME,
    agentType: LEAD_NAME,
    color: nextColor([]),
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
  return renamedFrom ? { config, renamedFrom } : { config };
}

function configOptions(): JsonFileOptions<TeamConfig> {
  return {
    schema: TeamConfigSchema,
    init: () => {
      throw new SwarmError('not_found', 'team config.json is missing');
    },
    // A team file is never restarted empty: report it like readTeam does (the bytes are kept).
    onCorrupt: (r) => {
      throw new SwarmError('corrupt', `${r.file} was corrupt (${r.problem}); kept as ${r.keptAs}`);
    },
  };
}

function notFound(team: string): SwarmError {
  return new SwarmError('not_found', `no team "${team}"; see 'swarm team list', or create it with 'swarm team create ${team}'`);
}

/** Read a team's config.json (parsed). Throws not_found / corrupt. */
export async function readTeam(root: string, team: string): Promise<TeamConfig> {
  const p = teamPaths(root, team);
  const config = await readJsonFile(p.config, { schema: TeamConfigSchema });
  if (!config) throw notFound(team);
  return config;
}

export async function teamExists(root: string, team: string): Promise<boolean> {
  try {
    await fs.access(teamPaths(root, team).config);
    return true;
  } catch {
    return false;
  }
}

/** Locked read-modify-write of config.json; `fn` may mutate and return a result. */
export async function updateTeam<R>(root: string, team: string, fn: (config: TeamConfig) => R | Promise<R>): Promise<R> {
  const p = teamPaths(root, team);
  if (!(await teamExists(root, team))) throw notFound(team);
  return mutateJsonFile(p.config, configOptions(), async (config) => {
    const result = await fn(config);
    return { write: config, result };
  });
}

export interface TeamSummary {
  name: string;
  description?: string;
  members: number;
  createdAt?: number;
  problem?: string;
}

export async function listTeams(root: string): Promise<TeamSummary[]> {
  let names: string[];
  try {
    names = await fs.readdir(teamsDir(root));
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw e;
  }
  const out: TeamSummary[] = [];
  for (const name of names.sort()) {
    try {
      assertTeamName(name);
    } catch {
      continue; // not a team directory swarm could have made
    }
    try {
      const c = await readTeam(root, name);
      out.push({ name, ...(c.description ? { description: c.description } : {}), members: c.members.length - 1, createdAt: c.createdAt });
    } catch (e) {
      out.push({ name, members: 0, problem: (e as Error).message });
    }
  }
  return out;
}

export async function deleteTeam(root: string, team: string): Promise<void> {
  const p = teamPaths(root, team);
  try {
    await fs.access(p.dir);
  } catch {
    throw notFound(team);
  }
  await fs.rm(p.dir, { recursive: true, force: true });
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

/** Add a member under the config lock: validated, unique, coloured. Returns the stored member. */
export async function addMember(root: string, team: string, member: NewMember, now = Date.now()): Promise<Member> {
  assertMemberName(member.name);
  return updateTeam(root, team, (config) => {
    if (findMember(config, member.name)) {
      throw new SwarmError('exists', `member "${member.name}" already exists in team "${team}"; pick another name`);
    }
    const stored: Member = {
      ...member,
      agentId: agentId(member.name, config.name),
      color: member.color ?? nextColor(config.members.map((m) => m.color)),
      joinedAt: now,
      tmuxPaneId: '',
      cwd: member.cwd ?? process.cwd(),
      subscriptions: [],
    };
    config.members.push(stored);
    return stored;
  });
}

/** Apply `patch` to a member under the config lock; returns the updated member. */
export async function updateMember(root: string, team: string, name: string, patch: Partial<Member>): Promise<Member> {
  return updateTeam(root, team, (config) => {
    const m = requireMember(config, name);
    Object.assign(m, patch, { name: m.name, agentId: m.agentId });
    return m;
  });
}

/** Remove a member (never the leader); returns it, or undefined if it was not there. */
export async function removeMember(root: string, team: string, name: string): Promise<Member | undefined> {
  if (sameName(name, LEAD_NAME)) throw new SwarmError('invalid_input', 'the team lead cannot be removed; delete the team instead');
  return updateTeam(root, team, (config) => {
    const i = config.members.findIndex((m) => sameName(m.name, name));
    if (i < 0) return undefined;
    const [removed] = config.members.splice(i, 1);
    return removed;
  });
}
