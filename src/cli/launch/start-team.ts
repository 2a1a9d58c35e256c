// The work of `swarm launch` (and `swarm demo`) once the team file is read: create the team
// (under a free name if taken, only when asked: `rename`), choose the backend (the console process becomes the in-process host when
// that is the backend), spawn every member, and put the leader console where docs/protocol.md#cli says: in the
// first pane of the team's session when the backend has team sessions (tmux outside tmux), else
// in this process.
//
// Members are spawned with spawnTeammates: panes are created one after another under the team's
// spawn lock, and the readiness handshakes run concurrently. Every member's spawn inputs are
// checked first (as spawn checks them), and a failure before the first spawn (the backend cannot be
// had) removes the new team again: a bad team file never leaves a half-made team. An interruption
// (`signal`, Ctrl-C) skips the members not started yet and undoes the spawns still waiting for
// readiness; `undoStart` then stops the ones already ready and removes the team, so nothing is left.
// The file's `tasks:` are created before the first spawn; their owners get task_assignment frames
// once spawned.
// `again`: the team exists with no teammate running (existing-team.ts): nothing is created; its
// task list (the file's tasks not on it yet are added), inboxes (spawn's `keepInbox`) and lead key
// are kept; the members that crashed (`stopped`) are resumed with their conversation, as `swarm
// resume` does, and the file's members not in the roster are spawned. A failure before the first
// spawn, or an interruption, never removes a team that existed before (undoStart keeps it).
import type { Backend, SessionConsole, TeamSessions } from '../../backends/backend.js';
import type { InProcessHost } from '../../backends/in-process/host.js';
import { paneLabel, selectBackend, type BackendChoice } from '../../backends/registry.js';
import { describeClaudeUsed } from '../../teammates/claude-version.js';
import { spawnTeammates, validateSpawn, type SpawnResult } from '../../teammates/spawn.js';
import { killTeammate } from '../../teammates/stop.js';
import { SWARM_BIN, forwardedEnv } from '../../teammates/command-line.js';
import { ensureLeadKey } from '../../permissions/keys.js';
import { SwarmError, isSwarmError } from '../../protocol/errors.js';
import { sameName } from '../../protocol/names.js';
import { createTeam, deleteTeam, updateTeam } from '../../team/team-store.js';
import { parseDuration } from '../../protocol/duration.js';
import { Team } from '../../team/team.js';
import { resumeNamed, resumedLine } from '../resume-members.js';
import { chalk, paint } from '../output/render.js';
import { memberHosts, type TeamFile } from './team-file.js';
import { announceOwners, createFileTasks } from './team-tasks.js';
import type { Task } from '../../protocol/task.js';
import { openConsoleHost } from '../console/host.js';
import { cliIo } from '../io.js';

export interface StartTeamOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  file: TeamFile;
  requested: BackendChoice;
  /** A console will run (so the in-process backend is possible: this process hosts it). */
  withConsole: boolean;
  /** Directory for members without a cwd. */
  cwd: string;
  /** Create the team under a free name if the file's name is taken (else that is an error). */
  rename?: boolean;
  /** The team exists with no teammate running: start it again; `stopped`: its crashed members, resumed; `roster`: its teammates. */
  again?: { stopped: readonly string[]; roster: readonly string[] } | undefined;
  print(line: string): void;
  readyTimeoutMs?: number;
  /** Ctrl-C: members not started yet are skipped, and pending spawns are undone (spawn's `signal`). */
  signal?: AbortSignal;
}

export interface StartedTeam {
  team: Team;
  backend: Backend;
  host: InProcessHost | undefined;
  /** The team file's name when it was taken and another was picked. */
  renamedFrom: string | undefined;
  spawned: string[];
  failed: { name: string; error: string }[];
  /** Members not started, or undone, because `signal` aborted. */
  interrupted: string[];
  /** The team existed before (`again`): an undo keeps it. */
  existed: boolean;
}

async function chooseBackend(o: StartTeamOptions, team: Team): Promise<{ backend: Backend; host: InProcessHost | undefined }> {
  // backend: ssh gives every member a host (the file is checked for it): the first one's is the team's.
  const sshHost = o.requested === 'ssh' ? memberHosts(o.file)[0] : undefined;
  const ask = (host?: InProcessHost) => selectBackend({ requested: o.requested, env: o.env, team, inProcessHost: host, host: sshHost });
  try {
    const { backend, notes } = await ask();
    for (const n of notes) o.print(chalk.yellow(`note: ${n}`));
    return { backend, host: undefined };
  } catch (e) {
    // No in-process host yet (the only not_found selectBackend throws): this process becomes it
    // when a console will run here.
    if (!isSwarmError(e, 'not_found') || !o.withConsole) throw e;
    const host = await openConsoleHost(team, o.env);
    const { backend, notes } = await ask(host).catch(async (err: unknown) => {
      await host.close().catch(() => undefined);
      throw err;
    });
    for (const n of notes) o.print(chalk.yellow(`note: ${n}`));
    return { backend, host };
  }
}

/** The line launch prints when it starts an existing team again. */
export function againLine(name: string, stopped: readonly string[]): string {
  const resumed = stopped.length === 0 ? '' : `, resuming ${stopped.join(', ')} (stopped, never shut down) with their conversation`;
  return `team "${name}" exists with no teammate running: starting it again from the file, its tasks and inbox history kept${resumed} (--fresh starts from nothing)`;
}

/** Launched again: a file member is spawned unless the roster holds it (then it is stopped, and resumed). */
export function spawnAgain(name: string, roster: readonly string[]): boolean {
  return !roster.some((r) => sameName(r, name));
}

/** Every member's spawn inputs, checked as spawn checks them, before anything is created. */
function validateMembers(o: StartTeamOptions): void {
  const hosts = memberHosts(o.file);
  for (const [i, m] of o.file.members.entries()) {
    try {
      const remote = hosts[i] !== undefined;
      validateSpawn({ name: m.name, prompt: m.prompt, runtime: m.runtime, permissionMode: m.permissionMode, agentType: m.agentType, cwd: m.cwd ?? o.cwd, env: o.env, root: o.root, remote });
    } catch (e) {
      if (!isSwarmError(e)) throw e;
      throw new SwarmError(e.kind, `member "${m.name}": ${e.message}; nothing was created`, { cause: e });
    }
  }
}

export async function startTeam(o: StartTeamOptions): Promise<StartedTeam> {
  validateMembers(o);
  const { team, renamedFrom } =
    o.again !== undefined ? { team: new Team(o.root, o.file.name), renamedFrom: undefined } : await createTeam(o.root, { name: o.file.name, ...(o.file.description ? { description: o.file.description } : {}), cwd: o.cwd, rename: o.rename ?? false });
  const members = o.file.members.map((m, i) => ({ m, i })).filter(({ m }) => spawnAgain(m.name, o.again?.roster ?? []));
  let backend: Backend;
  let host: InProcessHost | undefined;
  let tasks: Task[] = [];
  try {
    await updateTeam(team, (c) => {
      c.swarm = {
        ...c.swarm,
        ...(o.requested !== 'auto' ? { backend: o.requested } : {}),
        ...(o.file.permissionMode ? { permissionMode: o.file.permissionMode } : {}),
        ...(o.file.hibernateAfter ? { hibernateAfterMs: parseDuration(o.file.hibernateAfter, 'hibernateAfter') } : {}),
      };
    });
    tasks = await createFileTasks(team, o.file.tasks ?? [], o.file.members.map((m) => m.name));
    ({ backend, host } = await chooseBackend(o, team));
    await ensureLeadKey(team); // last: a key outlives `deleteTeam`
  } catch (e) {
    // No member exists yet: leave no half-made team behind (its directory and task list go, and nothing else was made).
    if (o.again === undefined) await deleteTeam(team).catch(() => undefined);
    throw e;
  }
  if (o.again !== undefined) o.print(chalk.yellow(againLine(team.name, o.again.stopped)));
  else if (renamedFrom) o.print(chalk.yellow(`team "${renamedFrom}" exists; created "${team.name}" instead`));
  else o.print(`created team ${chalk.bold(team.name)}`);
  if (tasks.length > 0) o.print(`created ${tasks.length} task${tasks.length === 1 ? '' : 's'} (swarm tasks --team ${team.name})`);
  o.print(chalk.dim(backend.describe()));
  // Members with a host (their own, or the file's hosts: round-robin) run there, over ssh.
  const hosts = memberHosts(o.file);
  const onHost = new Map<string, Backend>();
  for (const h of new Set(hosts.filter((h): h is string => h !== undefined))) {
    const b = (await selectBackend({ requested: 'ssh', env: o.env, team, host: h })).backend;
    onHost.set(h, b);
    if (b.describe() !== backend.describe()) o.print(chalk.dim(b.describe()));
  }
  const spawned: string[] = [];
  const failed: StartedTeam['failed'] = [];
  const interrupted: string[] = [];
  // Panes are created one at a time (spawn.lock); the readiness handshakes overlap.
  // Each result is printed as it comes: a ready teammate shows before a slower one's handshake ends.
  const report = (r: SpawnResult): void => {
    if (r.ok) {
      o.print(`spawned ${paint(r.teammate.color, r.name)}${paneLabel(r.teammate)}: ready`);
      if (r.teammate.modeNote !== undefined) o.print(chalk.yellow(`note: ${r.teammate.modeNote}`));
      if (r.teammate.claude !== undefined) o.print(chalk.dim(`  ${describeClaudeUsed(r.teammate.claude)}`));
    } else if (r.error.kind !== 'interrupted') o.print(`${chalk.red('failed:')} ${r.error.message}`); // an interruption is reported as a whole
  };
  if (o.again !== undefined && o.again.stopped.length > 0) {
    const resumed = await resumeNamed(team, o.again.stopped, { backend, env: o.env, onNotice: (text) => o.print(chalk.yellow(text)), readyTimeoutMs: o.readyTimeoutMs, signal: o.signal }, (r) =>
      o.print(r.ok ? resumedLine(r) : `${chalk.red('failed:')} ${resumedLine(r)}`),
    );
    for (const r of resumed) {
      if (r.ok) spawned.push(r.name);
      else failed.push({ name: r.name, error: r.error.message });
    }
  }
  const results = await spawnTeammates(
    members.map(({ m, i }) => ({
      team,
      name: m.name,
      prompt: m.prompt,
      model: m.model,
      defaultModel: o.file.model,
      agentType: m.agentType,
      planModeRequired: m.planModeRequired,
      permissionMode: m.permissionMode,
      cwd: m.cwd ?? o.cwd,
      runtime: m.runtime,
      isolation: m.isolation,
      keepInbox: o.again !== undefined,
      backend: onHost.get(hosts[i] ?? '') ?? backend,
      env: o.env,
      onNotice: (text: string) => o.print(chalk.yellow(text)),
      ...(o.readyTimeoutMs !== undefined ? { readyTimeoutMs: o.readyTimeoutMs } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    })),
    report,
  );
  for (const r of results) {
    if (r.ok) spawned.push(r.name);
    else if (r.error.kind === 'interrupted') interrupted.push(r.name);
    else failed.push({ name: r.name, error: r.error.message });
  }
  await announceOwners(team, tasks, spawned);
  return { team, backend, host, renamedFrom, spawned, failed, interrupted, existed: o.again !== undefined };
}

/**
 * Undo a start that was interrupted: kill the members that did start (verified), the team's
 * session (if the backend made one), the in-process host, and remove the team — unless it existed
 * before (launched again: its files are kept). Returns one line saying what was stopped; throws if
 * a teammate could not be stopped (the team is then kept).
 */
export async function undoStart(s: StartedTeam, env: NodeJS.ProcessEnv): Promise<string> {
  const ctx = { env, inProcessHost: s.host };
  for (const name of s.spawned) await killTeammate(s.team, name, ctx);
  await s.backend.sessions?.kill(s.team.name);
  await s.host?.close();
  if (!s.existed) await deleteTeam(s.team);
  const stopped = s.spawned.length > 0 ? `stopped ${s.spawned.join(', ')}` : 'no teammate had started';
  const undone = s.interrupted.length > 0 ? `; not started or undone: ${s.interrupted.join(', ')}` : '';
  if (s.existed) return `interrupted: ${stopped}${undone}; team ${s.team.name} is kept (it existed before this launch: its task list and inbox history stay).`;
  return `interrupted: ${stopped}${undone}; removed team ${s.team.name}. Nothing is left.`;
}

/** The `swarm lead` argv for a team; `agent`: with an agent lead (`--agent`). */
export function leadArgv(team: string, agent = false): string[] {
  return [process.execPath, SWARM_BIN, 'lead', '--team', team, ...(agent ? ['--agent'] : [])];
}

/**
 * Run `swarm lead` (with `agent`: `swarm lead --agent`) in the first pane of the team's session, for
 * a backend with team sessions (`backend.sessions`: tmux outside tmux). The pane closes when the
 * console exits.
 */
export function consoleInSession(
  sessions: TeamSessions,
  team: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  extraEnv: Record<string, string> = {},
  agent = false,
): Promise<SessionConsole> {
  return sessions.runConsole(team, { argv: leadArgv(team, agent), cwd, env: { ...forwardedEnv(env), ...extraEnv } });
}

/**
 * Attach to the session when stdout is a terminal (resolves true when the attach ends: the user
 * detached, or the terminal went away), else say where the console is (false); the attach command
 * itself was printed once already, by startTeam (backend.describe()).
 */
export async function attachOrSay(inSession: SessionConsole, print: (line: string) => void): Promise<boolean> {
  print(`the leader console is in the session's first pane (${inSession.paneId}); attach with the tmux line above`);
  if (!cliIo().stdout.isTTY || !cliIo().stdin.isTTY) return false;
  await inSession.attachHere();
  return true;
}
