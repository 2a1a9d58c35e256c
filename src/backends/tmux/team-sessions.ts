// The visible per-team tmux sessions (docs/protocol.md#backends: `swarm-<team>` on the user's server, or the
// private SWARM_TMUX_SOCKET one): the name and its inverse, the session's first pane (created when
// missing, reused when someone else just created it), the leader console run in that pane, and a
// verified kill. The TmuxBackend offers this as its `sessions` capability outside tmux; doctor and
// demo reach it through the registry. The console's environment travels in a private env file,
// like a teammate's (env-file.ts), never as `-e KEY=value` on tmux's command line.
import { setTimeout as delay } from 'node:timers/promises';
import { execa } from 'execa';
import { SwarmError } from '../../protocol/errors.js';
import { TEAM_NAME_RE } from '../../protocol/names.js';
import type { ConsoleCommand, ListedSession, PlanLine, SessionConsole, TeamSessions } from '../backend.js';
import { argvWithEnvFile, plannedEnvFile } from '../env-file.js';
import { pollUntil, terminateProcess } from '../process.js';
import {
  type TmuxServer,
  hasSession,
  killPane,
  killPaneArgs,
  killSession,
  listAllPanes,
  listPaneSizes,
  newSession,
  respawnPane,
  respawnPaneArgs,
  sessionTarget,
  setPaneOption,
  setPaneOptionArgs,
} from './commands.js';

const PREFIX = 'swarm-';

export function sessionNameFor(team: string): string {
  return `${PREFIX}${team}`;
}

/** `swarm-<team>` → team, else undefined. */
export function sessionTeam(sessionName: string): string | undefined {
  if (!sessionName.startsWith(PREFIX)) return undefined;
  const team = sessionName.slice(PREFIX.length);
  return TEAM_NAME_RE.test(team) ? team : undefined;
}

/** What stands for the session's first pane in a dry run. */
export function firstPanePlaceholder(session: string): string {
  return `<first pane of ${session}>`;
}

/** The first pane of session `name`, creating the session (in `cwd`) when it is missing. */
export async function firstPaneOf(server: TmuxServer, name: string, cwd?: string): Promise<string> {
  if (!(await hasSession(server, name))) {
    try {
      return (await newSession(server, { name, ...(cwd === undefined ? {} : { cwd }) })).paneId;
    } catch (e) {
      if (!/duplicate session/i.test(String(e))) throw e; // someone else just created it: reuse
    }
  }
  const first = (await listPaneSizes(server, sessionTarget(name), { session: true }))[0];
  if (first === undefined) throw new SwarmError('backend', `tmux session ${name} has no panes`);
  return first.paneId;
}

export class TmuxTeamSessions implements TeamSessions {
  constructor(private readonly server: TmuxServer) {}

  nameOf(team: string): string {
    return sessionNameFor(team);
  }

  exists(team: string): Promise<boolean> {
    return hasSession(this.server, sessionNameFor(team));
  }

  async list(): Promise<ListedSession[]> {
    const bySession = new Map<string, ListedSession>();
    for (const p of await listAllPanes(this.server)) {
      const team = sessionTeam(p.sessionName);
      if (team === undefined) continue;
      const s = bySession.get(p.sessionName) ?? { name: p.sessionName, team, panes: [] };
      s.panes.push({ pid: p.pid, dead: p.dead });
      bySession.set(p.sessionName, s);
    }
    return [...bySession.values()];
  }

  async runConsole(team: string, cmd: ConsoleCommand): Promise<SessionConsole> {
    const session = sessionNameFor(team);
    const paneId = await firstPaneOf(this.server, session, cmd.cwd);
    await setPaneOption(this.server, paneId, 'remain-on-exit', 'off');
    await respawnPane(this.server, { target: paneId, cwd: cmd.cwd, argv: await argvWithEnvFile(cmd.env, cmd.argv) });
    const attach = this.attachArgv(session);
    const ended = async (signal: AbortSignal): Promise<void> => {
      for (;;) {
        const pane = (await listAllPanes(this.server)).find((p) => p.paneId === paneId);
        if (pane === undefined || pane.dead || signal.aborted) return;
        await delay(1000, undefined, { signal }).catch(() => undefined); // aborted: the loop ends
      }
    };
    const attachHere = async (): Promise<void> => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.TMUX; // tmux refuses to nest otherwise
      await execa(attach[0]!, attach.slice(1), { stdio: 'inherit', reject: false, env });
    };
    return { paneId, attach, attachHere, ended };
  }

  /** The session itself is in the panes' plan: the first teammate creates it. */
  planConsole(team: string, cmd: ConsoleCommand): PlanLine[] {
    const session = sessionNameFor(team);
    const first = firstPanePlaceholder(session);
    const planned = plannedEnvFile(cmd.env, cmd.argv);
    return [
      { run: this.tmux(setPaneOptionArgs(first, 'remain-on-exit', 'off')) },
      ...(planned.note === undefined ? [] : [{ note: planned.note }]),
      { run: this.tmux(respawnPaneArgs({ target: first, cwd: cmd.cwd, argv: planned.argv })) },
      { run: this.attachArgv(session) },
    ];
  }

  async dropConsolePane(team: string): Promise<void> {
    const session = sessionNameFor(team);
    if (!(await hasSession(this.server, session))) return;
    const panes = await listPaneSizes(this.server, sessionTarget(session), { session: true });
    if (panes.length <= 1) return this.kill(team);
    await killPane(this.server, panes[0]!.paneId);
  }

  planDropConsolePane(team: string): PlanLine[] {
    const session = sessionNameFor(team);
    return [
      { note: 'no console: the first pane closes, so the session ends with its last teammate (the whole session goes if no teammate started)' },
      { run: this.tmux(killPaneArgs(firstPanePlaceholder(session))) },
    ];
  }

  killLine(team: string): string {
    const socket = this.server.socket === undefined ? '' : `-L ${this.server.socket} `;
    return `tmux ${socket}kill-session -t '${sessionTarget(sessionNameFor(team))}'`;
  }

  async kill(team: string): Promise<void> {
    const session = sessionNameFor(team);
    // Its panes' processes (a console, an agent lead) get SIGHUP from kill-session and may still be
    // writing the team's files (a lease given back) after the session is gone: wait for each, then
    // end it, so a caller that removes the files next (the demo's root) is not written behind.
    const pids = (await this.panesToWaitFor()).filter((p) => p.sessionName === session && !p.dead).map((p) => p.pid);
    if (await hasSession(this.server, session)) {
      try {
        await killSession(this.server, session);
      } catch (e) {
        if (!/can't find session|no server running/i.test(String(e))) throw e; // gone meanwhile is fine
      }
    }
    if (!(await pollUntil(async () => !(await hasSession(this.server, session)), 3000))) {
      throw new SwarmError('backend', `tmux session ${session} is still there after kill-session`);
    }
    const lingering = (await Promise.all(pids.map(async (pid) => ((await terminateProcess(pid, { waitMs: 3000 })) ? [] : [pid])))).flat();
    if (lingering.length > 0) throw new SwarmError('backend', `tmux session ${session} is gone, but its process ${lingering.join(', ')} survived SIGKILL`);
  }

  /**
   * The server's panes, for kill() to wait on: a listing that fails (a busy server) is asked again,
   * and one that still fails is an error, never an empty list: that would skip the wait kill() promises.
   */
  private async panesToWaitFor(): Promise<Awaited<ReturnType<typeof listAllPanes>>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await listAllPanes(this.server);
      } catch (e) {
        if (attempt >= 3) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  private tmux(args: readonly string[]): string[] {
    return ['tmux', ...this.server.argv(args)];
  }

  private attachArgv(session: string): string[] {
    return this.tmux(['attach', '-t', session]);
  }
}
