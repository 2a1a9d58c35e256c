// Spawning one teammate (docs/protocol.md#spawn), through whichever Backend the caller chose:
//   1. under the config lock: validate and reserve the member (tmuxPaneId "", colour; a claude
//      teammate's Claude Code session id, `sessionId`, started with --session-id); the agent
//      type (team/agent-types.ts) is checked before that and supplies the model and permission
//      mode the spawn does not give. The person's mode is a ceiling (protocol/mode-ceiling.ts): a
//      mode a model asks for above it refuses the spawn, an agent type's above it is lowered to it
//      (and the result says so);
//   2. clear its inbox (with `keepInbox`, a team launched again: keep it, its messages marked read —
//      they were for the teammate that left) and write the initial prompt from team-lead (signed);
//   3. create the pane with the teammate as its command (recipe.ts);
//   4. record tmuxPaneId / backendType / pid / paneServer / runtime in config.json;
//   5. readiness handshake (readiness.ts, shared with resume.ts): the prompt is marked read or
//      removed, and (swarm runtime) the teammate's status/<name>.json names a live pid; a claude
//      teammate stuck on a first-run dialog is reported through `onNotice`.
// The pane's stderr is also kept in logs/<name>.stderr (PaneSpec.stderrLog), also after a failure.
// With `isolation: 'worktree'` step 1 also makes the teammate's git worktree (worktree.ts) and
// records `worktreePath` and the cwd inside it; the repository is remembered in `swarm.worktreeRepos`
// (for `swarm worktrees` and doctor once the member is gone). A failed spawn removes the worktree
// and its branch too.
// On any failure after step 1: capture the pane's last non-blank lines and how its process ended,
// kill the pane (verified), remove the member, its status and inbox files (a kept inbox stays), and throw a SwarmError
// carrying that output.
// Spawns of one team are serialised by the lock `teams/<team>/spawn.lock`, held for steps 1-4
// (reservation and pane creation: two `swarm spawn` processes never interleave them). The readiness
// handshake runs after the lock is released, so the handshakes of several spawns overlap; a failed
// handshake cleans up only its own teammate. `spawnTeammates` does this for a list in one process:
// panes are created one after another, readiness is awaited concurrently.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { agentTypeModel, type AgentType } from '../protocol/agent-type.js';
import { parsePermissionMode, type PermissionMode } from '../protocol/config.js';
import { SwarmError, isSwarmError } from '../protocol/errors.js';
import { capMode, checkRequestedMode, DEFAULT_CEILING } from '../protocol/mode-ceiling.js';
import { newSessionId } from '../protocol/ids.js';
import { assertMemberName } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { ensureDir, isDirectory, writeFileAtomic } from '../storage/atomic.js';
import { resolveAgentType } from '../team/agent-types.js';
import { ensureScratchpad } from '../team/scratchpad.js';
import { retireStatus } from '../team/spend.js';
import { addMember, readTeam, removeMember, updateMember, updateTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { Backend, BackendType, PaneRef } from '../backends/backend.js';
import { memberPaneFields } from '../backends/registry.js';
import { abandonPane, awaitReadiness, startFailure } from './readiness.js';
import { memberColor, memberPane, prepareMemberDirs, withSpawnLock } from './recipe.js';
import { TEAMMATE_RUNTIMES, resolveClaude, type Env, type TeammateRuntime } from './command-line.js';
import { askClaudeVersion, type ClaudeUsed, type ClaudeVersionQuestion } from './claude-version.js';
import { addWorktree, dropWorktree, planWorktree, type WorktreePlan } from './worktree.js';
import type { Isolation } from './spawn-choices.js';

export interface SpawnOptions {
  team: Team;
  name: string;
  prompt: string;
  model?: string | undefined;
  /**
   * A type of team/agent-types.ts; its model and permission mode apply unless `model`/`permissionMode`
   * are given (its mode never above the person's ceiling: see `typedSettings`).
   */
  agentType?: string | undefined;
  planModeRequired?: boolean | undefined;
  /** The person's mode for this teammate (`swarm spawn --permission-mode`, a team file member's). */
  permissionMode?: string | undefined;
  /**
   * A mode a model asked for (the agent lead's `Agent {mode}`): used only when it is not above the
   * person's ceiling, else the spawn is refused (a one-line error naming the ceiling) before anything
   * is written.
   */
  requestedMode?: string | undefined;
  /** Used when neither `model` nor the agent type names one (a team file's or a run's default). */
  defaultModel?: string | undefined;
  /** The same for the permission mode (else the team's `swarm.permissionMode`): the person's choice for the run. */
  defaultPermissionMode?: string | undefined;
  cwd?: string | undefined;
  runtime?: TeammateRuntime | undefined;
  isolation?: Isolation | undefined;
  /** Its own hibernateAfter (docs/hibernation.md), over the team's. */
  hibernateAfterMs?: number | undefined;
  /**
   * A team launched again: the member's inbox from its earlier run is kept as history (marked read,
   * so the new teammate starts from its prompt) instead of cleared, and a failed spawn leaves it.
   */
  keepInbox?: boolean | undefined;
  backend: Backend;
  /** Default 20 s. */
  readyTimeoutMs?: number;
  /** How long a claude teammate may wait on a first-run dialog for someone to answer it. Default 10 min. */
  dialogTimeoutMs?: number;
  /** Told what a person must do meanwhile (a claude teammate waiting on a dialog); one message, may span lines. */
  onNotice?: (text: string) => void;
  /** The leader's environment (forwarded variables, SWARM_TEAMMATE_COMMAND, PATH). */
  env: Env;
  /**
   * Aborted (Ctrl-C): a spawn not started yet is refused, and one waiting for readiness is undone
   * like a failed one (pane killed, member removed), with `interrupted` as its error.
   */
  signal?: AbortSignal;
  /** Tests: the swarm executable and the PATH lookup of `claude`. */
  swarmExecutable?: readonly string[];
  which?: (command: string, env: Env) => string | undefined;
}

export interface SpawnedTeammate {
  agentId: string;
  name: string;
  color: string;
  backendType: BackendType;
  paneId: string;
  pid: number | undefined;
  /** The machine it runs on (the ssh backend); absent = this one. */
  host?: string;
  /** One line when its agent type's permissionMode was lowered to the person's ceiling. */
  modeNote?: string;
  /** `--runtime claude` on this machine: the `claude` it runs and its version. */
  claude?: ClaudeUsed;
}

export { DEFAULT_DIALOG_TIMEOUT_MS, describeExit } from './readiness.js';

/** The spawn inputs checked before anything is written (also by launch, for every member first). */
export type SpawnInput = Pick<SpawnOptions, 'name' | 'prompt' | 'runtime' | 'permissionMode' | 'agentType' | 'cwd' | 'env' | 'which'> & {
  /** The root whose `agents/` holds the user's agent files (the team's root). */
  root: string;
  /** Panes on another machine: the cwd is checked there (by the backend), not here. */
  remote?: boolean | undefined;
};

export interface ValidSpawn {
  runtime: TeammateRuntime;
  mode: PermissionMode | undefined;
  cwd: string;
  agentType?: AgentType;
}

/** Check a spawn's inputs without touching anything; throws SwarmError('invalid_input' | 'not_found'). */
export function validateSpawn(o: SpawnInput): ValidSpawn {
  assertMemberName(o.name);
  if (o.prompt.trim() === '') throw new SwarmError('invalid_input', 'the initial prompt is empty; pass --prompt <text>');
  const runtime = o.runtime ?? 'swarm';
  if (!(TEAMMATE_RUNTIMES as readonly string[]).includes(runtime)) {
    throw new SwarmError('invalid_input', `expected --runtime ${TEAMMATE_RUNTIMES.join('|')}, got ${JSON.stringify(runtime)}`);
  }
  if (runtime === 'claude' && o.remote !== true) resolveClaude(o.env, o.which); // fail before anything is written (another machine's is checked there)
  const mode = o.permissionMode === undefined ? undefined : parsePermissionMode(o.permissionMode, '--permission-mode');
  const cwd = path.resolve(o.cwd ?? process.cwd());
  if (o.remote !== true && !isDirectory(cwd)) throw new SwarmError('invalid_input', `--cwd ${cwd} is not a directory`);
  const agentType = o.agentType === undefined ? undefined : resolveAgentType({ cwd, root: o.root }, o.agentType);
  return { runtime, mode, cwd, ...(agentType ? { agentType } : {}) };
}

/** What `typedSettings` chose, and the agent type's mode it lowered, if it did. */
export interface TypedSettings {
  model: string | undefined;
  mode: PermissionMode | undefined;
  /** The agent type asked for a mode above the ceiling; `mode` is the ceiling instead. */
  lowered?: { from: PermissionMode; to: PermissionMode };
}

/**
 * The model and permission mode a teammate gets: the spawn's own > a model's request > its agent
 * type's (model `inherit` = none) > the caller's default (a team file's, a run's) > the team's mode.
 * The person's choice (the spawn's own mode, else the default, else `default`) is the ceiling
 * (protocol/mode-ceiling.ts): a request above it throws, the type's mode above it is lowered to it.
 * Also what `launch --dry-run` shows.
 */
export function typedSettings(
  o: Pick<SpawnOptions, 'model' | 'permissionMode' | 'requestedMode' | 'defaultModel' | 'defaultPermissionMode'>,
  type: AgentType | undefined,
): TypedSettings {
  const parse = (m: string | undefined, what: string): PermissionMode | undefined => (m === undefined ? undefined : parsePermissionMode(m, what));
  const ownMode = parse(o.permissionMode, '--permission-mode');
  const defaultMode = parse(o.defaultPermissionMode, '--permission-mode');
  const ceiling = ownMode ?? defaultMode ?? DEFAULT_CEILING;
  const requested = o.requestedMode === undefined ? undefined : checkRequestedMode(parsePermissionMode(o.requestedMode, 'mode'), ceiling);
  const typeMode = type?.permissionMode === undefined ? undefined : capMode(type.permissionMode, ceiling);
  const mode = ownMode ?? requested ?? typeMode ?? defaultMode;
  const fromType = ownMode === undefined && requested === undefined ? type?.permissionMode : undefined;
  const lowered = fromType !== undefined && typeMode !== undefined && typeMode !== fromType ? { from: fromType, to: typeMode } : undefined;
  return {
    model: o.model ?? (type ? agentTypeModel(type) : undefined) ?? o.defaultModel,
    mode,
    ...(lowered ? { lowered } : {}),
  };
}

/** The line that says an agent type's mode was lowered to the ceiling (spawn output, the lead's tool result). */
export function describeLoweredMode(name: string, type: AgentType, lowered: { from: PermissionMode; to: PermissionMode }): string {
  const where = type.file === undefined ? '' : ` (${type.file})`;
  return (
    `agent type ${type.name}${where} asks for permissionMode ${lowered.from}; ${name} runs in ${lowered.to} instead: ` +
    `an agent file never raises the mode above the person's (the person gives it with --permission-mode ${lowered.from}, or permissionMode in a team file)`
  );
}

/** Add one teammate and wait until it is ready (docs/protocol.md#spawn); throws SwarmError, leaving nothing behind. */
export async function spawnTeammate(o: SpawnOptions): Promise<SpawnedTeammate> {
  return awaitReady(await startSpawn(o));
}

export type SpawnResult =
  | { ok: true; name: string; teammate: SpawnedTeammate }
  | { ok: false; name: string; error: SwarmError };

/**
 * Spawn several teammates of one team: panes are created one after another (each under the spawn
 * lock, in list order), and each readiness handshake starts as soon as its pane exists, so they
 * overlap. One result per entry, in order; a failed teammate is cleaned up and does not stop the
 * others. `onSettled` hears each result as it comes (a ready teammate before the slower ones).
 */
export async function spawnTeammates(list: readonly SpawnOptions[], onSettled: (r: SpawnResult) => void = () => undefined): Promise<SpawnResult[]> {
  const pending: Promise<SpawnResult>[] = [];
  for (const o of list) {
    if (o.signal?.aborted) {
      pending.push(Promise.resolve({ ok: false, name: o.name, error: new SwarmError('interrupted', `${o.name} was not started (interrupted)`) }));
      continue;
    }
    const started = await startSpawn(o).then(
      (p) => ({ ok: true as const, p }),
      (e: unknown) => ({ ok: false as const, error: asSwarmError(e) }),
    );
    if (!started.ok) {
      pending.push(Promise.resolve({ ok: false, name: o.name, error: started.error }));
      continue;
    }
    pending.push(
      awaitReady(started.p).then(
        (teammate): SpawnResult => ({ ok: true, name: teammate.name, teammate }),
        (e: unknown): SpawnResult => ({ ok: false, name: started.p.name, error: asSwarmError(e) }),
      ),
    );
  }
  return Promise.all(
    pending.map((p) =>
      p.then((r) => {
        onSettled(r);
        return r;
      }),
    ),
  );
}

function asSwarmError(e: unknown): SwarmError {
  return isSwarmError(e) ? e : new SwarmError('backend', e instanceof Error ? e.message : String(e), { cause: e });
}

/** A teammate whose pane exists and is recorded (steps 1-4), not yet known to be ready. */
interface StartedSpawn {
  o: SpawnOptions;
  mailbox: Mailbox;
  agentId: string;
  name: string;
  color: string;
  msgId: string;
  pane: PaneRef;
  runtime: TeammateRuntime;
  /** Where it runs (inside its worktree, if it has one). */
  cwd: string;
  worktree: WorktreePlan | undefined;
  /** Its agent type's mode was lowered to the ceiling: the line saying so. */
  modeNote: string | undefined;
  /** `--runtime claude` here: its `--version`, asked beside the spawn. */
  claude: ClaudeVersionQuestion | undefined;
}

/** Steps 1-4 under the team's spawn lock; on failure everything is undone and the error thrown. */
async function startSpawn(o: SpawnOptions): Promise<StartedSpawn> {
  const { runtime, mode, cwd, agentType } = validateSpawn({ ...o, root: o.team.root, remote: o.backend.remoteProcesses });
  const config = await readTeam(o.team); // not_found before anything is written
  const chosen = typedSettings(
    {
      model: o.model,
      defaultModel: o.defaultModel,
      permissionMode: mode,
      requestedMode: o.requestedMode,
      defaultPermissionMode: o.defaultPermissionMode ?? config.swarm?.permissionMode,
    },
    agentType,
  );
  const modeNote = chosen.lowered && agentType ? describeLoweredMode(o.name, agentType, chosen.lowered) : undefined;
  const claude = runtime === 'claude' && o.backend.remoteProcesses !== true ? askClaudeVersion(resolveClaude(o.env, o.which), o.env) : undefined;
  try {
    const started = await withSpawnLock(o.team, o.readyTimeoutMs, () => startLocked(o, { runtime, mode: chosen.mode, model: chosen.model, cwd }));
    return { ...started, modeNote, claude };
  } catch (e) {
    claude?.cancel();
    throw e;
  }
}

/** Step 5, outside the lock; on failure the teammate is cleaned up and the error thrown. */
async function awaitReady(s: StartedSpawn): Promise<SpawnedTeammate> {
  try {
    await awaitReadiness({ ...s.o, mailbox: s.mailbox, name: s.name, msgId: s.msgId, pane: s.pane, runtime: s.runtime, cwd: s.cwd });
  } catch (e) {
    s.claude?.cancel();
    throw await undoSpawn(s.o, s.name, s.pane, e, s.worktree);
  }
  const claude = await s.claude?.answer();
  return {
    ...spawnedTeammate(s.agentId, s.name, s.color, s.pane),
    ...(s.modeNote !== undefined ? { modeNote: s.modeNote } : {}),
    ...(claude !== undefined ? { claude } : {}),
  };
}

/** What spawn (and resume) report of a teammate that is ready in `pane`. */
export function spawnedTeammate(agentId: string, name: string, color: string, pane: PaneRef): SpawnedTeammate {
  return { agentId, name, color, backendType: pane.backendType, paneId: pane.paneId, pid: pane.pid, ...(pane.host !== undefined ? { host: pane.host } : {}) };
}

async function startLocked(
  o: SpawnOptions,
  v: { runtime: TeammateRuntime; mode: PermissionMode | undefined; model: string | undefined; cwd: string },
): Promise<Omit<StartedSpawn, 'modeNote' | 'claude'>> {
  const paths = o.team.paths;
  const { mailbox, key } = await openLeadMailbox({ team: o.team });
  const config = await readTeam(o.team);
  // A claude teammate's Claude Code session, named here so a resume can continue it (resume.ts).
  const sessionId = v.runtime === 'claude' ? newSessionId() : undefined;
  const member = await addMember(o.team, {
    name: o.name,
    prompt: o.prompt,
    cwd: v.cwd,
    backendType: o.backend.type,
    runtime: v.runtime,
    ...(v.model ? { model: v.model } : {}),
    ...(o.agentType ? { agentType: o.agentType } : {}),
    ...(o.planModeRequired ? { planModeRequired: true } : {}),
    ...(v.mode ? { mode: v.mode } : {}),
    ...(o.hibernateAfterMs !== undefined ? { hibernateAfterMs: o.hibernateAfterMs } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  });
  const name = member.name;
  const color = memberColor(member);
  let pane: PaneRef | undefined;
  let worktree: WorktreePlan | undefined;
  let cwd = v.cwd;
  try {
    if (o.isolation === 'worktree') {
      const plan = await planWorktree(o.team.name, name, v.cwd);
      await addWorktree(plan);
      worktree = plan;
      cwd = plan.cwd;
      await updateMember(o.team, name, { cwd, worktreePath: plan.path });
      await updateTeam(o.team, (c) => {
        const repos = c.swarm?.worktreeRepos ?? [];
        if (!repos.includes(plan.repo)) c.swarm = { ...c.swarm, worktreeRepos: [...repos, plan.repo] };
      });
    }
    const spec = memberPane({
      team: o.team,
      member: { name, color, agentType: o.agentType, model: v.model, planModeRequired: o.planModeRequired, mode: v.mode, cwd, sessionId },
      runtime: v.runtime,
      lead: { sessionId: config.leadSessionId, verifyKey: key.verifyKey },
      env: o.env,
      backend: o.backend,
      swarmExecutable: o.swarmExecutable,
      which: o.which,
    });
    await prepareMemberDirs({ team: o.team, member: { name, cwd }, runtime: v.runtime, backend: o.backend });
    await retireStatus(o.team, name); // a previous teammate's heartbeat must not count (what it spent still does)
    await ensureDir(paths.logsDir);
    await ensureScratchpad(o.team); // named in its prompt (swarm) or its command line (claude)
    // Started empty (nor a previous teammate's errors) and 0600 like every file under the root:
    // the pane's `tee -a` and the in-process host only append, so they keep this mode.
    await writeFileAtomic(paths.stderrLog(name), '');
    if (o.keepInbox === true) await mailbox.consume(name);
    else await mailbox.clear(name);
    const lead = config.members[0];
    const prompt = await mailbox.append(name, { from: 'team-lead', text: o.prompt, ...(lead?.color ? { color: lead.color } : {}) });
    pane = await o.backend.createPane(spec);
    await updateMember(o.team, name, { ...memberPaneFields(pane), runtime: v.runtime });
    return { o, mailbox, agentId: member.agentId, name, color, msgId: prompt.msg_id ?? '', pane, runtime: v.runtime, cwd, worktree };
  } catch (e) {
    throw await undoSpawn(o, name, pane, e, worktree);
  }
}

/** Clean up a failed spawn; returns the error to throw (with the pane's last output and its stderr log). */
async function undoSpawn(o: SpawnOptions, name: string, pane: PaneRef | undefined, cause: unknown, worktree?: WorktreePlan): Promise<SwarmError> {
  const problems: string[] = [];
  const output = await abandonPane(o.backend, pane, problems, o.team.paths.stderrLog(name));
  await removeMember(o.team, name).catch((e: unknown) => problems.push(`the member could not be removed: ${String(e)}`));
  if (worktree !== undefined) {
    await dropWorktree(worktree).catch((e: unknown) => problems.push(`its worktree could not be removed: ${e instanceof Error ? e.message : String(e)}`));
  }
  await retireStatus(o.team, name).catch(() => undefined);
  if (o.keepInbox !== true) await fs.rm(o.team.paths.inbox(name), { force: true }).catch(() => undefined);
  return startFailure(`spawn of ${name} failed`, o.team.paths.stderrLog(name), output, problems, cause);
}
