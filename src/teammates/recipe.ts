// The member → pane recipe, the one spawn, resume and `launch --dry-run` all use: what a roster
// member runs (its teammate command, command-line.ts, with the backend's executable and `claude`
// lookup) and the PaneSpec createPane()/plan() take. Also the spawn lock both spawn and resume take,
// `teams/<team>/spawn.lock`, with a budget that outlasts one start (waiters give up only after a
// long time without progress).
import type { Backend, PaneSpec } from '../backends/backend.js';
import { isPermissionMode, type Member } from '../protocol/config.js';
import path from 'node:path';
import { ensureDir, writeFileAtomic } from '../storage/atomic.js';
import { withFileLock } from '../storage/lock.js';
import { readTeamMemory } from '../team/memory.js';
import { memorySection } from '../team/memory-prompt.js';
import { memoryDir } from '../team/paths.js';
import type { Team } from '../team/team.js';
import { buildTeammateCommand, claudeSettings, type Env, type TeammateRuntime } from './command-line.js';
import { DEFAULT_READY_TIMEOUT_MS } from './spawn-choices.js';

/** The colour of a member config.json records none for (one added by another tool). */
export const DEFAULT_MEMBER_COLOR = 'blue';

export function memberColor(m: Pick<Member, 'color'>): string {
  return m.color ?? DEFAULT_MEMBER_COLOR;
}

/** `fn` under the team's spawn lock (spawn's steps 1-4, a resume's start and undo). */
export function withSpawnLock<R>(team: Team, readyTimeoutMs: number | undefined, fn: () => Promise<R>): Promise<R> {
  return withFileLock(team.paths.spawnLock, fn, { budgetMs: (readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS) + 60_000 });
}

/** What the recipe reads of a member: its roster entry's fields (an unknown `mode` is left out). */
export type RecipeMember = Pick<Member, 'name' | 'color' | 'agentType' | 'model' | 'planModeRequired' | 'mode' | 'sessionId'> & { cwd: string };

export interface MemberPaneInput {
  team: Team;
  member: RecipeMember;
  runtime: TeammateRuntime;
  /** config.json's leadSessionId and the lead's verify key (placeholders in a dry run). */
  lead: { sessionId: string; verifyKey: string };
  /** A swarm teammate restores its conversation, a claude one continues its session `member.sessionId` (`swarm resume`). */
  resume?: boolean;
  /** The leader's environment (forwarded variables, SWARM_TEAMMATE_COMMAND, PATH). */
  env: Env;
  /** The backend the pane is made on: a pane on another machine runs that machine's swarm and claude. */
  backend: Pick<Backend, 'teammateExecutable' | 'remoteProcesses'>;
  /** Tests: the swarm executable (else the backend's) and the PATH lookup of `claude`. */
  swarmExecutable?: readonly string[] | undefined;
  which?: ((command: string, env: Env) => string | undefined) | undefined;
}

type MemoryInput = { team: Team; member: { name: string; cwd: string }; runtime: TeammateRuntime; backend: Pick<Backend, 'remoteProcesses'> };

/**
 * The team memory directory a claude member is handed (docs/memory.md): its project's, by its cwd.
 * None for a swarm member (it finds its own) or on another machine (the root there is another).
 */
export function claudeMemberMemory(i: MemoryInput): string | undefined {
  return i.runtime === 'claude' && i.backend.remoteProcesses !== true ? memoryDir(i.team.root, i.member.cwd) : undefined;
}

/**
 * The file a claude member's system prompt is appended from (--append-system-prompt-file): its team
 * memory as a swarm teammate's prompt gives it (team/memory-prompt.ts). Claude Code reads its own
 * project memory, not the team's index, so swarm hands it over; here only, like the directory.
 */
export function claudeMemberPrompt(i: MemoryInput): string | undefined {
  return claudeMemberMemory(i) === undefined ? undefined : i.team.paths.appendedPrompt(i.member.name);
}

/**
 * The file a claude member's `--settings` are written to (a claude member on this machine; on
 * another, the JSON goes on its command line).
 */
export function claudeMemberSettingsFile(i: MemoryInput): string | undefined {
  return claudeMemberMemory(i) === undefined ? undefined : i.team.paths.claudeSettings(i.member.name);
}

/**
 * Before a member's pane is made (spawn, resume; not a dry run): the directories and files its
 * command names exist — a claude teammate's team memory (its allow rule names it), the prompt
 * file made from it, as the memory is now, and its settings file.
 */
export async function prepareMemberDirs(i: MemoryInput): Promise<void> {
  const memory = claudeMemberMemory(i);
  const prompt = claudeMemberPrompt(i);
  const settings = claudeMemberSettingsFile(i);
  if (memory === undefined || prompt === undefined || settings === undefined) return;
  await ensureDir(memory);
  await ensureDir(path.dirname(prompt));
  await writeFileAtomic(prompt, `${memorySection(await readTeamMemory(memory), 'teammate').join('\n')}\n`);
  await writeFileAtomic(settings, `${JSON.stringify(claudeSettings(i.team.paths.scratchpad, memory))}\n`);
}

/** The pane `member` runs in: its teammate command, colour, cwd and stderr log. Throws SwarmError when it cannot be built. */
export function memberPane(i: MemberPaneInput): PaneSpec {
  const { member: m } = i;
  const color = memberColor(m);
  const swarmExecutable = i.swarmExecutable ?? i.backend.teammateExecutable;
  const cmd = buildTeammateCommand({
    runtime: i.runtime,
    team: i.team.name,
    name: m.name,
    color,
    leadSessionId: i.lead.sessionId,
    leadVerifyKey: i.lead.verifyKey,
    agentType: m.agentType,
    model: m.model,
    planModeRequired: m.planModeRequired,
    permissionMode: isPermissionMode(m.mode) ? m.mode : undefined,
    cwd: m.cwd,
    resume: i.resume,
    claudeSession: m.sessionId,
    scratchpad: i.team.paths.scratchpad,
    memoryDir: claudeMemberMemory(i),
    appendPromptFile: claudeMemberPrompt(i),
    settingsFile: claudeMemberSettingsFile(i),
    env: i.env,
    ...(swarmExecutable ? { swarmExecutable } : {}),
    remote: i.backend.remoteProcesses === true,
    ...(i.which ? { which: i.which } : {}),
  });
  return { team: i.team.name, name: m.name, color, argv: cmd.argv, env: cmd.env, cwd: m.cwd, stderrLog: i.team.paths.stderrLog(m.name) };
}
