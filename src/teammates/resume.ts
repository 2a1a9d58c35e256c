// Resuming stopped members (docs/protocol.md#resume): a member still in the roster whose process and pane are gone
// (status-report.ts: `stopped`, or `hibernating`: docs/hibernation.md, the waker's path) is started again in a new pane of the backend the caller chose,
// with everything config.json recorded at its spawn: name, agentId, colour, agent type, model,
// permission mode (the current one), runtime and cwd (inside its worktree, reused as it is).
//   swarm runtime:  `swarm teammate ... --resume`: the runtime rebuilds its conversation from
//                   logs/<name>.jsonl and reads its inbox as usual, so unread messages are
//                   delivered between rounds; ready when its status file names a live pid.
//   claude runtime: `claude --resume <sessionId>` when config.json records its session (spawn names
//                   it) and Claude Code's transcript of it is here: the conversation goes on, the
//                   unread inbox is read as usual; ready when it has written to that transcript.
//                   Otherwise (no session recorded, its transcript gone, a pane on another
//                   machine) its original prompt (config.json `prompt`) is written to its inbox
//                   again, after the messages still unread there, and it starts in a new session
//                   (recorded); ready when it has taken that prompt.
// One member is resumed at most once at a time: under the team's spawn lock (the one spawns take)
// the member is read again and must still be `stopped` — else "already running (pid N)" or
// "already being started", and nothing starts — then the transcript (`inspectTranscript`,
// injected: the runtime layer reads it) and the cwd are checked, the new pane is created and at
// once recorded in config.json (as a spawn records its pane before readiness). So a second resume
// that gets the lock sees the first one's pane alive, and a resumer that dies meanwhile leaves its
// teammate recorded, never a process nobody knows of. A failed resume, under the same lock, kills
// its new pane, takes back a claude prompt and puts the old pane fields back (only while config
// still names its pane), so the member is stopped as before, with why in the error. Readiness is
// awaited outside the lock, so several members' handshakes overlap.
import type { Backend, PaneRef } from '../backends/backend.js';
import { memberPaneFields, paneRefOf } from '../backends/registry.js';
import type { Member } from '../protocol/config.js';
import { SwarmError, isSwarmError } from '../protocol/errors.js';
import { sameName } from '../protocol/names.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { isDirectory } from '../storage/atomic.js';
import { newSessionId, isSessionId } from '../protocol/ids.js';
import { claudeTranscript } from '../team/paths.js';
import { ensureScratchpad } from '../team/scratchpad.js';
import { retireStatus } from '../team/spend.js';
import { findMember, readTeam, updateMember, updateTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { TEAMMATE_RUNTIMES, type Env, type TeammateRuntime } from './command-line.js';
import { abandonPane, awaitReadiness, fileSize, startFailure } from './readiness.js';
import { memberColor, memberPane, prepareMemberDirs, withSpawnLock } from './recipe.js';
import { spawnedTeammate, type SpawnedTeammate } from './spawn.js';
import { collectStatus, type MemberStatus } from './status-report.js';

export interface ResumeOptions {
  team: Team;
  /** The members to resume; none: every stopped member. */
  names?: readonly string[] | undefined;
  backend: Backend;
  /** The leader's environment (forwarded variables, SWARM_TMUX_SOCKET, PATH). */
  env: Env;
  /** How many messages a swarm teammate's transcript restores; throws SwarmError when it cannot be restored whole. */
  inspectTranscript: (file: string) => Promise<number>;
  readyTimeoutMs?: number | undefined;
  dialogTimeoutMs?: number | undefined;
  onNotice?: ((text: string) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Tests: the swarm executable and the PATH lookup of `claude`. */
  swarmExecutable?: readonly string[];
  which?: (command: string, env: Env) => string | undefined;
}

export type ResumeResult =
  | {
      ok: true;
      name: string;
      runtime: TeammateRuntime;
      /** Messages of the conversation restored (swarm runtime; 0 for claude). */
      restored: number;
      /** A claude teammate's Claude Code session was continued (`claude --resume`); false: its prompt was sent again (or a swarm teammate). */
      continued: boolean;
      /** Unread inbox messages waiting for it. */
      unread: number;
      teammate: SpawnedTeammate;
    }
  | { ok: false; name: string; error: SwarmError };

/** A member that can be resumed: stopped (crashed, or its pane closed), or hibernating (docs/hibernation.md: woken by hand). */
function resumable(m: Pick<MemberStatus, 'state'>): boolean {
  return m.state === 'stopped' || m.state === 'hibernating';
}

/**
 * The members to resume: the named ones (each must be `stopped` or `hibernating`: a one-line error
 * naming its state otherwise), or every stopped member (a hibernating one wakes on its next
 * message, not on a bare `swarm resume`). Throws before anything is started.
 */
export async function membersToResume(team: Team, names: readonly string[], env: Env): Promise<string[]> {
  const { report } = await collectStatus(team, { env });
  const teammates = report.members.slice(1);
  const stopped = teammates.filter((m) => m.state === 'stopped').map((m) => m.name);
  if (names.length === 0) return stopped;
  return names.map((n) => {
    const m = teammates.find((x) => sameName(x.name, n));
    if (m === undefined) throw new SwarmError('not_found', `no teammate ${n} in team ${team.name} (swarm status lists them)`);
    if (resumable(m)) return m.name;
    throw notStopped(m, team.name);
  });
}

/** Why `m` (not `stopped`) cannot be resumed: the refusal of membersToResume and of the check under the spawn lock. */
function notStopped(m: MemberStatus, team: string): SwarmError {
  const pid = m.pid === null ? '' : `pid ${m.pid}, `;
  if (m.state === 'dead') {
    return new SwarmError('invalid_input', `${m.name} is dead, not stopped: its pane is gone but its process ${m.pid ?? '?'} still runs; stop it first (swarm kill ${m.name} --team ${team})`);
  }
  const why = 'only a stopped member (process and pane gone) can be resumed';
  if (m.alive === true && m.state === 'starting') return new SwarmError('exists', `${m.name} is already being started (${pid}starting): ${why}`);
  if (m.alive === true) return new SwarmError('exists', `${m.name} is already running (${pid}${m.state}): ${why}`);
  return new SwarmError('invalid_input', `${m.name} is ${m.state}, not stopped: ${why}`);
}

/** Resume each member of `names` (already checked by membersToResume); one result per name, in order. */
export async function resumeTeammates(o: ResumeOptions & { names: readonly string[] }, onSettled: (r: ResumeResult) => void = () => undefined): Promise<ResumeResult[]> {
  const pending: Promise<ResumeResult>[] = [];
  for (const name of o.names) {
    const started = await startResume(o, name).then(
      (s) => ({ ok: true as const, s }),
      (e: unknown) => ({ ok: false as const, error: asSwarmError(e, name) }),
    );
    pending.push(started.ok ? finishResume(o, started.s) : Promise.resolve({ ok: false, name, error: started.error }));
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

function asSwarmError(e: unknown, name: string): SwarmError {
  if (isSwarmError(e)) return e.message.startsWith(`resume of ${name} failed`) ? e : new SwarmError(e.kind, `resume of ${name} failed: ${e.message}`, { cause: e });
  return new SwarmError('backend', `resume of ${name} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
}

interface StartedResume {
  /** The member as it was before this resume (its old pane fields are put back if the resume fails). */
  member: Member;
  runtime: TeammateRuntime;
  restored: number;
  msgId: string;
  /** A claude teammate's session continued with `claude --resume`: its transcript, for readiness. */
  session: ContinuedSession | undefined;
  pane: PaneRef;
  /** The crashed process's pane, still shown as exited by its backend (remain-on-exit): closed once the new one is ready. */
  exitedPane: PaneRef | undefined;
  mailbox: Awaited<ReturnType<typeof openLeadMailbox>>['mailbox'];
}

/** Under the spawn lock: still stopped?, the checks, the new pane, recorded in config.json at once. */
async function startResume(o: ResumeOptions, name: string): Promise<StartedResume> {
  const paths = o.team.paths;
  return withSpawnLock(o.team, o.readyTimeoutMs, async () => {
    // Again under the lock: another resume may have started it since this one was asked for.
    const { report } = await collectStatus(o.team, { env: o.env });
    const now = report.members.slice(1).find((m) => sameName(m.name, name));
    if (now !== undefined && !resumable(now)) throw notStopped(now, o.team.name);
    const config = await readTeam(o.team);
    const member = findMember(config, name);
    if (now === undefined || member === undefined) throw new SwarmError('not_found', `${name} is no longer a member of team ${o.team.name}`);
    const runtime = (TEAMMATE_RUNTIMES as readonly string[]).includes(member.runtime ?? 'swarm') ? ((member.runtime ?? 'swarm') as TeammateRuntime) : undefined;
    if (runtime === undefined) throw new SwarmError('invalid_input', `its runtime ${JSON.stringify(member.runtime)} is unknown`);
    const restored = runtime === 'swarm' ? await o.inspectTranscript(paths.log(member.name)) : 0;
    // On another machine the cwd is checked there, by the pane's command (as at spawn).
    if (o.backend.remoteProcesses !== true && !isDirectory(member.cwd)) {
      const worktree = member.worktreePath ? ` (its worktree ${member.worktreePath} was removed?)` : '';
      throw new SwarmError('invalid_input', `its cwd ${member.cwd} no longer exists${worktree}; recreate it, or remove the member (swarm kill ${member.name} --team ${o.team.name})`);
    }
    const session = runtime === 'claude' ? await sessionToContinue(o, member) : undefined;
    if (runtime === 'claude' && session === undefined && !member.prompt) throw new SwarmError('invalid_input', 'config.json records no prompt for it, so a claude teammate cannot be restarted');
    // A claude teammate that cannot go on with its session starts a new one, recorded with its pane.
    const sessionId = runtime === 'claude' ? (session?.id ?? newSessionId()) : undefined;
    const { mailbox, key } = await openLeadMailbox({ team: o.team });
    await ensureScratchpad(o.team); // a team made before scratchpads, or one removed by hand
    const spec = memberPane({
      team: o.team,
      member: { ...member, sessionId },
      runtime,
      lead: { sessionId: config.leadSessionId, verifyKey: key.verifyKey },
      resume: runtime === 'swarm' || session !== undefined,
      env: o.env,
      backend: o.backend,
      swarmExecutable: o.swarmExecutable,
      which: o.which,
    });
    await prepareMemberDirs({ team: o.team, member, runtime, backend: o.backend });
    // Asked before the new pane exists: a restarted server could reuse the old id for another pane.
    const oldRef = oldPaneRef(member, o.backend);
    const exitedPane = oldRef !== undefined && (await o.backend.probe([oldRef]).catch(() => ['unknown']))[0] === 'dead' ? oldRef : undefined;
    await retireStatus(o.team, member.name); // the crashed process's heartbeat must not count (what it spent still does)
    let msgId = '';
    if (runtime === 'claude' && session === undefined) {
      const lead = config.members[0];
      const prompt = await mailbox.append(member.name, { from: 'team-lead', text: member.prompt!, ...(lead?.color ? { color: lead.color } : {}) });
      msgId = prompt.msg_id ?? '';
    }
    let pane: PaneRef | undefined;
    try {
      pane = await o.backend.createPane(spec);
      // Every pane field, absent ones cleared: the old pid must not stand for the new pane. Awake
      // from here on (a hibernating member): if it goes back to sleep, its own new mark stands.
      const { tmuxPaneId, backendType, pid, paneServer } = memberPaneFields(pane);
      await updateMember(o.team, member.name, { tmuxPaneId, backendType, pid, paneServer, hibernatedAt: undefined, sessionId });
      return { member, runtime, restored, msgId, session, pane, mailbox, exitedPane };
    } catch (e) {
      const problems: string[] = [];
      await abandonPane(o.backend, pane, problems);
      await takeBackPrompt(mailbox, member.name, msgId);
      if (problems.length > 0) throw new SwarmError(isSwarmError(e) ? e.kind : 'backend', `${e instanceof Error ? e.message : String(e)}; ${problems.join('; ')}`, { cause: e });
      throw e;
    }
  });
}

interface ContinuedSession {
  id: string;
  /** Claude Code's transcript of it and its size before the new pane (readiness: it grows). */
  transcript: string;
  size: number;
}

/**
 * The Claude Code session a claude member goes on with: the one config.json records (a UUID), when
 * its transcript is under this root (`claude --resume` of a session it cannot find exits 1, "No
 * conversation found with session ID"). A member on another machine keeps it there: not found here.
 */
async function sessionToContinue(o: ResumeOptions, member: Member): Promise<ContinuedSession | undefined> {
  const id = member.sessionId;
  if (id === undefined || !isSessionId(id)) return undefined;
  const transcript = claudeTranscript(o.team.root, member.cwd, id);
  const size = await fileSize(transcript);
  return size < 0 ? undefined : { id, transcript, size };
}

/** The member's recorded pane when it belongs to `backend`'s kind (else there is nothing of it to close). */
function oldPaneRef(m: Member, backend: Backend): PaneRef | undefined {
  return m.tmuxPaneId === '' || m.backendType !== backend.type ? undefined : paneRefOf(m);
}

/** A claude prompt written for a resume that failed is marked read, so a later resume does not send it twice. */
async function takeBackPrompt(mailbox: StartedResume['mailbox'], name: string, msgId: string): Promise<void> {
  if (msgId !== '') await mailbox.consume(name, (m) => m.msg_id === msgId).catch(() => undefined);
}

/** Readiness, then the roster entry marked active; on failure the member is put back as it was (undoResume). */
async function finishResume(o: ResumeOptions, s: StartedResume): Promise<ResumeResult> {
  const name = s.member.name;
  try {
    await awaitReadiness({ ...o, mailbox: s.mailbox, name, msgId: s.msgId, session: s.session, pane: s.pane, runtime: s.runtime, cwd: s.member.cwd });
  } catch (e) {
    return { ok: false, name, error: await undoResume(o, s, e) };
  }
  const old = s.member;
  await updateMember(o.team, name, { ...memberPaneFields(s.pane), isActive: true });
  if (s.exitedPane !== undefined) await o.backend.kill(s.exitedPane).catch(() => undefined); // its stderr stays in logs/<name>.stderr
  const unread = (await s.mailbox.unread(name).catch(() => [])).length;
  return { ok: true, name, runtime: s.runtime, restored: s.restored, continued: s.session !== undefined, unread, teammate: spawnedTeammate(old.agentId, name, memberColor(old), s.pane) };
}

/**
 * A resume whose teammate did not become ready, undone under the spawn lock (so no other resume
 * sees the member stopped before it is whole again): the new pane killed, a claude prompt taken
 * back, and the old pane fields (and session id) put back while config.json still names the new pane. Returns the error.
 */
async function undoResume(o: ResumeOptions, s: StartedResume, cause: unknown): Promise<SwarmError> {
  const name = s.member.name;
  const problems: string[] = [];
  const output = await withSpawnLock(o.team, o.readyTimeoutMs, async () => {
    const captured = await abandonPane(o.backend, s.pane, problems, o.team.paths.stderrLog(name));
    await takeBackPrompt(s.mailbox, name, s.msgId);
    // The new process may have recorded itself (pid, isActive) before it failed: put back what was.
    const { tmuxPaneId, backendType, pid, paneServer, isActive, hibernatedAt, sessionId } = s.member;
    const ours = memberPaneFields(s.pane);
    await updateTeam(o.team, (c) => {
      const m = findMember(c, name);
      if (m !== undefined && m.tmuxPaneId === ours.tmuxPaneId && m.backendType === ours.backendType && m.paneServer === ours.paneServer) {
        Object.assign(m, { tmuxPaneId, backendType, pid, paneServer, isActive, hibernatedAt, sessionId });
      }
    }).catch((e: unknown) => problems.push(`its roster entry could not be restored: ${e instanceof Error ? e.message : String(e)}`));
    return captured;
  }).catch((e: unknown) => {
    problems.push(`it could not be undone: ${e instanceof Error ? e.message : String(e)}`);
    return { lines: [] };
  });
  return startFailure(`resume of ${name} failed`, o.team.paths.stderrLog(name), output, [...problems, `${name} is still ${s.member.hibernatedAt === undefined ? 'stopped' : 'hibernating'}`], cause);
}
