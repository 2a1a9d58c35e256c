// Resuming stopped members (SPEC §11): a member still in the roster whose process and pane are gone
// (status-report.ts: `stopped`) is started again in a new pane of the backend the caller chose,
// with everything config.json recorded at its spawn: name, agentId, colour, agent type, model,
// permission mode (the current one), runtime and cwd (inside its worktree, reused as it is).
//   swarm runtime:  `swarm teammate ... --resume`: the runtime rebuilds its conversation from
//                   logs/<name>.jsonl and reads its inbox as usual, so unread messages are
//                   delivered between rounds; ready when its status file names a live pid.
//   claude runtime: its original prompt (config.json `prompt`) is written to its inbox again, after
//                   the messages still unread there, which Claude Code reads with it; ready when it
//                   has taken that prompt.
// Nothing is half-restored: the transcript (`inspectTranscript`, injected: the runtime layer reads
// it) and the cwd are checked before anything starts, and config.json's pane fields change only
// once the teammate is ready. A failed resume kills its new pane (and takes back a claude prompt)
// and leaves the member stopped, with why in the error. Panes are created one at a time under the
// team's spawn lock (as spawns are); readiness is awaited concurrently.
import path from 'node:path';
import type { Backend, PaneRef } from '../backends/backend.js';
import { memberPaneFields, paneRefOf } from '../backends/registry.js';
import { isPermissionMode, type Member } from '../protocol/config.js';
import { SwarmError, isSwarmError } from '../protocol/errors.js';
import { sameName } from '../protocol/names.js';
import { openLeadMailbox } from '../permissions/lead-mailbox.js';
import { isDirectory } from '../storage/atomic.js';
import { withFileLock } from '../storage/lock.js';
import { retireStatus } from '../team/spend.js';
import { findMember, readTeam, updateMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { TEAMMATE_RUNTIMES, buildTeammateCommand, type Env, type TeammateRuntime } from './command-line.js';
import { abandonPane, awaitReadiness, DEFAULT_READY_TIMEOUT_MS, startFailure } from './readiness.js';
import { spawnedTeammate, type SpawnedTeammate } from './spawn.js';
import { collectStatus } from './status-report.js';

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
      /** Unread inbox messages waiting for it. */
      unread: number;
      teammate: SpawnedTeammate;
    }
  | { ok: false; name: string; error: SwarmError };

/**
 * The members to resume: the named ones (each must be `stopped`: a one-line error naming its state
 * otherwise), or every stopped member. Throws before anything is started.
 */
export async function membersToResume(team: Team, names: readonly string[], env: Env): Promise<string[]> {
  const { report } = await collectStatus(team, { env });
  const teammates = report.members.slice(1);
  const stopped = teammates.filter((m) => m.state === 'stopped').map((m) => m.name);
  if (names.length === 0) return stopped;
  return names.map((n) => {
    const m = teammates.find((x) => sameName(x.name, n));
    if (m === undefined) throw new SwarmError('not_found', `no teammate ${n} in team ${team.name} (swarm status lists them)`);
    if (m.state === 'stopped') return m.name;
    const why =
      m.state === 'dead'
        ? `its pane is gone but its process ${m.pid ?? '?'} still runs; stop it first (swarm kill ${m.name} --team ${team.name})`
        : 'only a stopped member (process and pane gone) can be resumed';
    throw new SwarmError('invalid_input', `${m.name} is ${m.state}, not stopped: ${why}`);
  });
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
  member: Member;
  runtime: TeammateRuntime;
  restored: number;
  msgId: string;
  pane: PaneRef;
  /** The crashed process's pane, still shown as exited by its backend (remain-on-exit): closed once the new one is ready. */
  exitedPane: PaneRef | undefined;
  mailbox: Awaited<ReturnType<typeof openLeadMailbox>>['mailbox'];
}

/** Checks, then the new pane under the spawn lock; config.json is not touched. */
async function startResume(o: ResumeOptions, name: string): Promise<StartedResume> {
  const paths = o.team.paths;
  const before = findMember(await readTeam(o.team), name);
  if (before === undefined) throw new SwarmError('not_found', `${name} is no longer a member of team ${o.team.name}`);
  const runtime = (TEAMMATE_RUNTIMES as readonly string[]).includes(before.runtime ?? 'swarm') ? ((before.runtime ?? 'swarm') as TeammateRuntime) : undefined;
  if (runtime === undefined) throw new SwarmError('invalid_input', `its runtime ${JSON.stringify(before.runtime)} is unknown`);
  const restored = runtime === 'swarm' ? await o.inspectTranscript(paths.log(before.name)) : 0;
  // On another machine the cwd is checked there, by the pane's command (as at spawn).
  if (o.backend.remoteProcesses !== true && !isDirectory(before.cwd)) {
    const worktree = before.worktreePath ? ` (its worktree ${before.worktreePath} was removed?)` : '';
    throw new SwarmError('invalid_input', `its cwd ${before.cwd} no longer exists${worktree}; recreate it, or remove the member (swarm kill ${before.name} --team ${o.team.name})`);
  }
  if (runtime === 'claude' && !before.prompt) throw new SwarmError('invalid_input', 'config.json records no prompt for it, so a claude teammate cannot be restarted');
  const budgetMs = (o.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS) + 60_000;
  return withFileLock(
    path.join(paths.dir, 'spawn'),
    async () => {
      const config = await readTeam(o.team);
      const member = findMember(config, name);
      // Another resume (or a kill) got here first.
      if (member === undefined || member.tmuxPaneId !== before.tmuxPaneId || member.pid !== before.pid) {
        throw new SwarmError('exists', `${name} changed meanwhile (resumed or removed by someone else); see swarm status`);
      }
      const { mailbox, key } = await openLeadMailbox({ team: o.team });
      const cmd = buildTeammateCommand({
        runtime,
        team: o.team.name,
        name: member.name,
        color: member.color ?? 'blue',
        leadSessionId: config.leadSessionId,
        leadVerifyKey: key.verifyKey,
        agentType: member.agentType,
        model: member.model,
        planModeRequired: member.planModeRequired,
        permissionMode: isPermissionMode(member.mode) ? member.mode : undefined,
        cwd: member.cwd,
        resume: runtime === 'swarm',
        env: o.env,
        // On another machine: that machine's swarm and claude, from its PATH (as spawn does).
        ...((o.swarmExecutable ?? o.backend.teammateExecutable) ? { swarmExecutable: o.swarmExecutable ?? o.backend.teammateExecutable } : {}),
        remote: o.backend.remoteProcesses === true,
        ...(o.which ? { which: o.which } : {}),
      });
      // Asked before the new pane exists: a restarted server could reuse the old id for another pane.
      const oldRef = oldPaneRef(member, o.backend);
      const exitedPane = oldRef !== undefined && (await o.backend.probe([oldRef]).catch(() => ['unknown']))[0] === 'dead' ? oldRef : undefined;
      await retireStatus(o.team, member.name); // the crashed process's heartbeat must not count (what it spent still does)
      let msgId = '';
      if (runtime === 'claude') {
        const lead = config.members[0];
        const prompt = await mailbox.append(member.name, { from: 'team-lead', text: member.prompt!, ...(lead?.color ? { color: lead.color } : {}) });
        msgId = prompt.msg_id ?? '';
      }
      try {
        const pane = await o.backend.createPane({ team: o.team.name, name: member.name, color: member.color ?? 'blue', argv: cmd.argv, env: cmd.env, cwd: member.cwd, stderrLog: paths.stderrLog(member.name) });
        return { member, runtime, restored, msgId, pane, mailbox, exitedPane };
      } catch (e) {
        await takeBackPrompt(mailbox, member.name, msgId);
        throw e;
      }
    },
    { budgetMs },
  );
}

/** The member's recorded pane when it belongs to `backend`'s kind (else there is nothing of it to close). */
function oldPaneRef(m: Member, backend: Backend): PaneRef | undefined {
  return m.tmuxPaneId === '' || m.backendType !== backend.type ? undefined : paneRefOf(m);
}

/** A claude prompt written for a resume that failed is marked read, so a later resume does not send it twice. */
async function takeBackPrompt(mailbox: StartedResume['mailbox'], name: string, msgId: string): Promise<void> {
  if (msgId !== '') await mailbox.consume(name, (m) => m.msg_id === msgId).catch(() => undefined);
}

/** Readiness, then (only then) the roster entry; on failure the new pane is killed and the member left as it was. */
async function finishResume(o: ResumeOptions, s: StartedResume): Promise<ResumeResult> {
  const name = s.member.name;
  try {
    await awaitReadiness({ ...o, mailbox: s.mailbox, name, msgId: s.msgId, pane: s.pane, runtime: s.runtime, cwd: s.member.cwd });
  } catch (e) {
    const problems: string[] = [];
    const output = await abandonPane(o.backend, s.pane, problems);
    await takeBackPrompt(s.mailbox, name, s.msgId);
    // The new process may have recorded itself (pid, isActive) before it failed: put back what was.
    const { tmuxPaneId, backendType, pid, paneServer, isActive } = s.member;
    await updateMember(o.team, name, { tmuxPaneId, backendType, pid, paneServer, isActive }).catch((e: unknown) =>
      problems.push(`its roster entry could not be restored: ${e instanceof Error ? e.message : String(e)}`),
    );
    const error = await startFailure(`resume of ${name} failed`, o.team.paths.stderrLog(name), output, [...problems, `${name} is still stopped`], e);
    return { ok: false, name, error };
  }
  const old = s.member;
  await updateMember(o.team, name, { ...memberPaneFields(s.pane), isActive: true });
  if (s.exitedPane !== undefined) await o.backend.kill(s.exitedPane).catch(() => undefined); // its stderr stays in logs/<name>.stderr
  const unread = (await s.mailbox.unread(name).catch(() => [])).length;
  return { ok: true, name, runtime: s.runtime, restored: s.restored, unread, teammate: spawnedTeammate(old.agentId, name, old.color ?? 'blue', s.pane) };
}
