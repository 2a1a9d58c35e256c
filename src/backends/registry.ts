// The backend registry: the only place that chooses a backend (docs/protocol.md#backends) and the only place that
// maps a member's recorded `backendType` back to an implementation. Everything else holds a
// `Backend` and never asks which one it is.
//
// `--backend auto` detection order:
//   1. inside tmux ($TMUX and $TMUX_PANE) → tmux, splitting the leader's window;
//   2. inside iTerm2 (TERM_PROGRAM=iTerm.app or ITERM_SESSION_ID), not inside tmux, and a working
//      Python `it2` (`it2 session list` exits 0) → iterm2; a broken/missing it2 → a note with the
//      install hint, then fall through;
//   3. tmux installed (`tmux -V`) → tmux, a visible session `swarm-<team>` on the default server;
//   4. otherwise → in-process (needs a running host: the leader console).
// `--backend ssh` (or `--host`) is never detected: it needs the machine (`--host [user@]host[:port]`).
// `SWARM_TMUX_SOCKET` (tmux -L) selects a private server; "inside tmux" then only counts when
// $TMUX points at that same server.
import path from 'node:path';
import type { BackendType, Member } from '../protocol/config.js';
import { SwarmError } from '../protocol/errors.js';
import type { Team } from '../team/team.js';
import type { Backend, PaneRef, TeamSessions } from './backend.js';
import { InProcessBackend } from './in-process/in-process-backend.js';
import type { InProcessHost } from './in-process/host.js';
import { parseBackendType, recordedBackendType, type BackendChoice } from './kinds.js';
import { liveHost, noHostError } from './in-process/files.js';
import { Iterm2Backend } from './iterm2/iterm2-backend.js';
import { detectIt2 } from './iterm2/it2-commands.js';
import { type Exec, execaExec } from './process.js';
import { SshBackend } from './ssh/ssh-backend.js';
import { checkTmuxServerName, TmuxServer } from './tmux/commands.js';
import { TmuxTeamSessions, sessionNameFor, sessionTeam } from './tmux/team-sessions.js';
import { TmuxBackend } from './tmux/tmux-backend.js';
import { probeTmuxInstall, TMUX_MIN_VERSION } from './tmux/version.js';

export { parseTmuxVersion, probeTmuxInstall, TMUX_MIN_VERSION, type TmuxInstall } from './tmux/version.js';

export { detectIt2 } from './iterm2/it2-commands.js';

export { BACKEND_CHOICES, parseBackendType, recordedBackendType, type BackendChoice } from './kinds.js';

export type Env = Record<string, string | undefined>;


export interface BackendContext {
  env: Env;
  exec?: Exec;
  /** Set inside the in-process host's own process (the leader console). */
  inProcessHost?: InProcessHost | undefined;
  /** Kill verification deadline per stage, ms (backend defaults otherwise). */
  killTimeoutMs?: number;
}

export interface SelectBackendOptions extends BackendContext {
  requested: BackendChoice;
  team: Team;
  /** `--host [user@]host[:port]`: the ssh backend's machine (implies `ssh` when the choice is auto). */
  host?: string | undefined;
}

export interface SelectedBackend {
  backend: Backend;
  /** Why this one, and what was skipped (e.g. the it2 install hint). */
  notes: string[];
}

/** SWARM_TMUX_SOCKET, checked (checkTmuxServerName): the private tmux server, or undefined for the default one. */
export function tmuxSocketOf(env: Env): string | undefined {
  return env.SWARM_TMUX_SOCKET ? checkTmuxServerName(env.SWARM_TMUX_SOCKET) : undefined;
}

/** The leader's pane when this process runs inside the tmux server swarm will use. */
export function insideTmuxPane(env: Env): string | undefined {
  const tmux = env.TMUX;
  const pane = env.TMUX_PANE;
  if (!tmux || !pane) return undefined;
  const socket = tmuxSocketOf(env);
  if (socket !== undefined && path.basename(tmux.split(',')[0] ?? '') !== socket) return undefined;
  return pane;
}

/** The tmux session this shell is in: its name, the team it belongs to (`swarm-<team>`), its panes. */
export interface MySession {
  name: string;
  team: string | undefined;
  paneIds: string[];
}

/**
 * The tmux session of this shell's pane ($TMUX, $TMUX_PANE), asked of the server $TMUX names;
 * undefined outside tmux or when tmux cannot say. For commands that pick a team by where you are.
 */
export async function mySession(env: Env, exec: Exec = execaExec): Promise<MySession | undefined> {
  const socketPath = env.TMUX?.split(',')[0];
  const pane = env.TMUX_PANE;
  if (!socketPath || !pane) return undefined;
  const r = await new TmuxServer({ socketPath, exec }).tryRun(['list-panes', '-s', '-t', pane, '-F', '#{session_name}\t#{pane_id}']);
  if (r.exitCode !== 0) return undefined;
  const rows = r.stdout.split('\n').filter((l) => l.includes('\t')).map((l) => l.split('\t') as [string, string]);
  const name = rows[0]?.[0];
  if (name === undefined) return undefined;
  return { name, team: sessionTeam(name), paneIds: rows.map(([, id]) => id) };
}

export function inIterm2(env: Env): boolean {
  return env.TERM_PROGRAM === 'iTerm.app' || Boolean(env.ITERM_SESSION_ID);
}


function tmuxBackend(o: SelectBackendOptions | (BackendContext & { team: Team }), pane?: string): TmuxBackend {
  return new TmuxBackend({
    socket: tmuxSocketOf(o.env),
    insideTmux: pane === undefined ? undefined : { paneId: pane },
    sessionName: sessionNameFor(o.team.name),
    leaderTitle: `swarm lead · ${o.team.name}`,
    exec: o.exec ?? execaExec,
    ...(o.killTimeoutMs !== undefined ? { killTimeoutMs: o.killTimeoutMs } : {}),
  });
}

function iterm2Backend(o: BackendContext): Iterm2Backend {
  // ITERM_SESSION_ID is `w0t0p0:<uuid>`; it2 names sessions by the uuid.
  const id = o.env.ITERM_SESSION_ID?.split(':').pop() || undefined;
  return new Iterm2Backend({
    exec: o.exec ?? execaExec,
    env: o.env,
    leaderSessionId: id,
    ...(o.killTimeoutMs !== undefined ? { killTimeoutMs: o.killTimeoutMs } : {}),
  });
}

function inProcessBackend(o: BackendContext & { team: Team }): InProcessBackend {
  return new InProcessBackend({
    team: o.team,
    host: o.inProcessHost,
    ...(o.killTimeoutMs !== undefined ? { killTimeoutMs: o.killTimeoutMs } : {}),
  });
}

/** The ssh backend (SWARM_TMUX_SOCKET names the hosts' tmux server, SWARM_REMOTE_ROOT where they mount the root). */
function sshBackend(o: BackendContext & { team: Team }, host?: string): SshBackend {
  return new SshBackend({
    host,
    root: o.team.root,
    remoteRoot: o.env.SWARM_REMOTE_ROOT || undefined,
    sessionName: sessionNameFor(o.team.name),
    socket: tmuxSocketOf(o.env),
    env: o.env,
    ...(o.exec !== undefined ? { exec: o.exec } : {}),
    ...(o.killTimeoutMs !== undefined ? { killTimeoutMs: o.killTimeoutMs } : {}),
  });
}

async function tmuxInstalled(o: SelectBackendOptions, notes: string[]): Promise<boolean> {
  const install = await probeTmuxInstall(o.exec ?? execaExec);
  if (install.state !== 'ok') return false;
  if (install.tooOld) notes.push(`${install.text} is older than the tested minimum tmux ${TMUX_MIN_VERSION}; upgrade if panes misbehave`);
  return true;
}

async function inProcessOrFail(o: SelectBackendOptions, why: string): Promise<Backend> {
  if (o.inProcessHost === undefined && (await liveHost(o.team)) === undefined) {
    const e = noHostError(o.team.name);
    throw new SwarmError(e.kind, why ? `${why}, and ${e.message}` : e.message);
  }
  return inProcessBackend(o);
}

/** Choose the backend for new teammates (docs/protocol.md#backends). Throws SwarmError when the choice cannot work. */
export async function selectBackend(o: SelectBackendOptions): Promise<SelectedBackend> {
  const notes: string[] = [];
  const pane = insideTmuxPane(o.env);
  const socket = tmuxSocketOf(o.env);
  if (o.env.TMUX && pane === undefined && socket !== undefined) {
    notes.push(`SWARM_TMUX_SOCKET=${socket}: teammates go to that private tmux server, not the tmux you are in`);
  }
  if (o.host !== undefined && o.requested !== 'ssh' && o.requested !== 'auto') {
    throw new SwarmError('invalid_input', `--host is for --backend ssh, not --backend ${o.requested}; drop one of them`);
  }
  switch (o.host === undefined ? o.requested : 'ssh') {
    case 'ssh':
      if (o.host === undefined) throw new SwarmError('invalid_input', '--backend ssh needs --host [user@]host[:port] (the machine the teammate runs on)');
      return { backend: sshBackend(o, o.host), notes };
    case 'tmux':
      if (pane === undefined && !(await tmuxInstalled(o, notes))) {
        throw new SwarmError('backend', `--backend tmux: tmux is not installed (tmux -V failed); install tmux ${TMUX_MIN_VERSION} or newer`);
      }
      return { backend: tmuxBackend(o, pane), notes };
    case 'iterm2': {
      const d = await detectIt2(o.env, o.exec ?? execaExec);
      if (!d.usable) throw new SwarmError('backend', `--backend iterm2: ${d.reason}; ${d.hint}`);
      return { backend: iterm2Backend(o), notes };
    }
    case 'in-process':
      return { backend: await inProcessOrFail(o, ''), notes };
    case 'auto':
      break;
  }
  if (pane !== undefined) return { backend: tmuxBackend(o, pane), notes };
  if (!o.env.TMUX && inIterm2(o.env)) {
    const d = await detectIt2(o.env, o.exec ?? execaExec);
    if (d.usable) return { backend: iterm2Backend(o), notes };
    notes.push(`iTerm2 detected but not usable: ${d.reason}; ${d.hint}. Falling back.`);
  }
  if (await tmuxInstalled(o, notes)) return { backend: tmuxBackend(o), notes };
  notes.push('tmux is not installed: using the in-process backend');
  return { backend: await inProcessOrFail(o, 'no tmux or iTerm2 to open panes in'), notes };
}

/** The backend of a kind, for panes already recorded (`backendType` in config.json). */
export function backendForType(type: BackendType, team: Team, ctx: BackendContext): Backend {
  switch (type) {
    case 'tmux':
      return tmuxBackend({ ...ctx, team });
    case 'iterm2':
      return iterm2Backend(ctx);
    case 'in-process':
      return inProcessBackend({ ...ctx, team });
    case 'ssh':
      return sshBackend({ ...ctx, team });
  }
}

/** The backend that manages a member's pane, from its recorded `backendType`. */
export function backendForMember(member: Member, team: Team, ctx: BackendContext): Backend {
  const type = parseBackendType(member.backendType);
  if (type === undefined) {
    throw new SwarmError(
      'invalid_input',
      `member ${member.name} has no known backend (backendType ${JSON.stringify(member.backendType ?? null)}); stop its process by hand`,
    );
  }
  return backendForType(type, team, ctx);
}

/** The PaneRef recorded for a member in config.json. */
export function paneRefOf(member: Member): PaneRef {
  return {
    paneId: member.tmuxPaneId,
    backendType: parseBackendType(member.backendType) ?? 'tmux',
    ...(member.pid !== undefined ? { pid: member.pid } : {}),
    ...(member.paneServer ? { server: member.paneServer } : {}),
    ...(member.host ? { host: member.host } : {}),
    name: member.name,
  };
}

/** What config.json records of a new pane (the reverse of paneRefOf). */
export function memberPaneFields(pane: PaneRef): Pick<Member, 'tmuxPaneId' | 'backendType' | 'pid' | 'paneServer' | 'host'> {
  return {
    tmuxPaneId: pane.paneId,
    backendType: pane.backendType,
    ...(pane.pid !== undefined ? { pid: pane.pid } : {}),
    ...(pane.server !== undefined ? { paneServer: pane.server } : {}),
    ...(pane.host !== undefined ? { host: pane.host } : {}),
  };
}

/** Where a spawned teammate runs, for messages: ` in tmux pane %3`, ` in ssh pane %3 on build1`, or ` (in-process)`. */
export function paneLabel(p: { backendType: string; paneId: string; host?: string | undefined }): string {
  if (recordedBackendType(p) === 'in-process') return ' (in-process)';
  return ` in ${p.backendType} pane ${p.paneId}${p.host === undefined ? '' : ` on ${p.host}`}`;
}

/** The team sessions of the tmux server that tmux panes go to (SWARM_TMUX_SOCKET, else the default). */
export function teamSessions(ctx: { env: Env; exec?: Exec | undefined }): TeamSessions {
  return new TmuxTeamSessions(new TmuxServer({ socket: tmuxSocketOf(ctx.env), exec: ctx.exec ?? execaExec }));
}
