// The tmux pane backend. Each teammate runs as the command of its own pane (split-window ... --
// argv), never typed into a shell.
//
// Where panes go:
// - inside tmux (`insideTmux.paneId` = $TMUX_PANE): the leader's window is split, leader left and
//   teammates right (`main-vertical`, `tiled` past 4 teammates in a window);
// - outside tmux: a detached, visible session `sessionName` (swarm-<team>) is created or reused.
//   Its first pane is kept as the leader's place (the user's default shell, where `swarm lead` can
//   run); teammates are split beside it exactly as inside tmux. `describe()` prints the attach line.
// When a window has no room for another pane (re-laid out, some pane would be under MIN_PANE,
// 20x3 cells, or tmux says "no space for new pane"), a new window is opened in the same session: a
// placeholder `sleep` pane is created, the window options are set, then `respawn-pane -k` runs the
// teammate, so `remain-on-exit` is in force before the teammate starts.
//
// Every window used gets `remain-on-exit on` before its first teammate starts (a teammate that dies
// at once leaves its output readable), `pane-border-status top` and a `pane-border-format` that
// shows each pane's `@agent_name` in its `@agent_color` (per-pane user options; per-pane border
// line colours bleed into neighbours, labels do not). Pane creation is serialised per instance.
//
// Each pane it creates carries its server (`PaneRef.server`: the socket path, `#{socket_path}`),
// which spawn records with the member. Probing, killing, capturing and reaching a pane use that
// recorded server, whatever SWARM_TMUX_SOCKET the asking shell has; a pane without one (an older
// record) is looked for on this backend's own server.
// Panes made by others: a pane Claude Code made for its teammate runs the default shell with the
// teammate typed into it (no start command). Such a pane is alive while its shell has a child (the
// shell prompt left once the teammate exits is not a teammate), and `kill` makes sure of the pane's
// process and of every process it started (listed before the kill: they are reparented once it is
// gone; the teammate outlives the pane by seconds).
// tmux's main-vertical makes the window's FIRST pane the big one: that is the leader outside tmux,
// and inside tmux whenever the leader's pane is the first of its window (the usual case).
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { TMUX_COLORS, isColorName } from '../../protocol/colors.js';
import { paneArgv, plannedPaneArgv } from '../pane-argv.js';
import { SwarmError } from '../../protocol/errors.js';
import type { Backend, PaneOutput, PaneRef, PaneSpec, PaneState, PlanLine } from '../backend.js';
import { type TerminateOptions, descendantsOf, pollUntil, processChildren, tailLines, terminateProcess } from '../process.js';
import {
  type Exec,
  type NewPane,
  type PaneGeometry,
  type TmuxLayout,
  type TmuxPane,
  TmuxServer,
  capturePaneWithExit,
  displayPaneContext,
  isDeadPaneNotice,
  isNoServerMessage,
  isNoSpaceError,
  killPane,
  listAllPanes,
  socketPathOf,
  listPaneGeometry,
  newSessionArgs,
  newWindow,
  respawnPane,
  selectLayoutArgs,
  setPaneOptionArgs,
  setPaneTitleArgs,
  setWindowOptionArgs,
  splitWindow,
  splitWindowArgs,
} from './commands.js';
import { TmuxTeamSessions, firstPaneOf, firstPanePlaceholder } from './team-sessions.js';

export interface TmuxBackendOptions {
  /** Private server name (`tmux -L`), from SWARM_TMUX_SOCKET. Unset: the current/default server. */
  socket?: string | undefined;
  /** Set when running inside tmux: the leader's pane ($TMUX_PANE), whose window is split. */
  insideTmux?: { paneId: string } | undefined;
  /** `swarm-<team>`: the session created outside tmux, and the name of overflow windows. */
  sessionName: string;
  /** The title given to the leader's pane (shown in its border) once teammates sit beside it. */
  leaderTitle?: string | undefined;
  exec?: Exec;
  /** Deadline for verifying a kill (pane gone, process gone), per stage. Default 3000 ms. */
  killTimeoutMs?: number;
  /** Smallest pane a window may be re-laid out to; default MIN_PANE (20 x 3). */
  minPaneSize?: PaneSizeLimit;
  /**
   * Where the panes' processes run when not on this machine (the ssh backend): how a pane's argv
   * is prepared there (its private files written there) and how its process is made sure gone.
   * Default: here (pane-argv.ts, terminateProcess).
   */
  host?: PaneHost;
}

/** A machine the panes' processes run on: see `TmuxBackendOptions.host`. */
export interface PaneHost {
  paneArgv(spec: PaneSpec): Promise<string[]>;
  terminate(pid: number, opts: TerminateOptions): Promise<boolean>;
  /** What `pid` started over there (`ps` run on that machine). */
  descendants(pid: number): Promise<number[]>;
}

/** This machine: the pane's files written here, its processes ended and listed here. */
const LOCAL_HOST: PaneHost = {
  paneArgv,
  terminate: terminateProcess,
  descendants: (pid) => descendantsOf(pid),
};

/** The leader's place: the pane teammates sit beside, its window and session. */
export interface LeaderPlace {
  sessionId: string;
  windowId: string;
  leaderPaneId: string;
}

export const PANE_BORDER_FORMAT =
  '#{?#{@agent_name},#[fg=#{@agent_color}#,bold] #{@agent_name} #[default],#{pane_title}}';

/** Teammates per window laid out beside the leader before switching to `tiled`. */
export const MAIN_VERTICAL_MAX = 4;
const PLACEHOLDER_ARGV = ['sleep', '2147483647'];

/**
 * The listed pane that is this PaneRef's: same id and, when the pid is known, same pid. Pane ids
 * restart at %0 with a new server, so a recorded `%3` may name someone else's pane by now.
 */
function isThePane(listed: TmuxPane, pane: PaneRef): boolean {
  return listed.paneId === pane.paneId && (pane.pid === undefined || listed.pid === pane.pid);
}

/**
 * Whether what was typed into shell pane `p` (TmuxPane.shell: a Claude Code teammate) still runs:
 * its shell has a child. Without `ps` (no table) it is taken as running.
 */
function stillRunsInShell(p: TmuxPane, children: Map<number, number[]> | undefined): boolean {
  return children === undefined || (children.get(p.pid) ?? []).length > 0;
}

/** Layout for a window holding `teammates` teammate panes (plus the leader's when `withLeader`). */
export function chooseLayout(teammates: number, withLeader: boolean): TmuxLayout {
  return withLeader && teammates <= MAIN_VERTICAL_MAX ? 'main-vertical' : 'tiled';
}

export interface PaneSizeLimit {
  width: number;
  height: number;
}
/** Smallest teammate pane worth having; when the next layout would go below it, open a window. */
export const MIN_PANE: PaneSizeLimit = { width: 20, height: 3 };

/**
 * Would a `width` x `height` window holding `panes` panes (the leader's among them when
 * `withLeader`) still give every pane at least `min` after one more is added and re-laid out?
 * Mirrors tmux 3.3: main-vertical with `main-pane-width 50%`; tiled grows rows then columns; every
 * pane has a 1-line top border (pane-border-status top).
 */
export function roomForAnother(
  window: { width: number; height: number },
  panes: number,
  withLeader: boolean,
  min: PaneSizeLimit = MIN_PANE,
): boolean {
  const total = panes + 1;
  const teammates = withLeader ? total - 1 : total;
  let cols: number;
  let rows: number;
  let width: number;
  if (chooseLayout(teammates, withLeader) === 'main-vertical') {
    rows = teammates;
    cols = 1;
    width = window.width - Math.floor(window.width / 2) - 1;
  } else {
    rows = 1;
    cols = 1;
    while (rows * cols < total) {
      rows++;
      if (rows * cols < total) cols++;
    }
    width = Math.floor((window.width - (cols - 1)) / cols);
  }
  const height = Math.floor((window.height - rows) / rows);
  return width >= min.width && height >= min.height;
}

/** Split directions for a pane, best first: side by side (`h`) when it is wide (cells are ~1:2). */
export function splitOrder(width: number, height: number): ('h' | 'v')[] {
  return width >= height * 2 ? ['h', 'v'] : ['v', 'h'];
}

export function tmuxColor(color: string): string {
  return isColorName(color) ? TMUX_COLORS[color] : 'default';
}

/** Window options every teammate window needs, set before any teammate starts in it (one call). */
function windowOptionCommands(windowId: string): string[][] {
  return [
    setWindowOptionArgs(windowId, 'remain-on-exit', 'on'),
    setWindowOptionArgs(windowId, 'pane-border-status', 'top'),
    setWindowOptionArgs(windowId, 'pane-border-format', PANE_BORDER_FORMAT),
    // The default (80 columns) leaves teammates one column in an 80-column window.
    setWindowOptionArgs(windowId, 'main-pane-width', '50%'),
  ];
}

/** A new pane's label, colour and title, then its window re-laid out (one call). */
function labelCommands(paneId: string, windowId: string, spec: PaneSpec, layout: TmuxLayout): string[][] {
  return [
    setPaneOptionArgs(paneId, '@agent_name', spec.name),
    setPaneOptionArgs(paneId, '@agent_color', tmuxColor(spec.color)),
    setPaneTitleArgs(paneId, spec.name),
    selectLayoutArgs(windowId, layout),
  ];
}

/** How many times a split is tried when its target pane closed under it. */
const SPLIT_ATTEMPTS = 3;

export class TmuxBackend implements Backend {
  readonly type = 'tmux' as const;
  readonly server: TmuxServer;
  /** Outside tmux the panes live in the team's own session; inside, in the leader's window. */
  readonly sessions: TmuxTeamSessions | undefined;
  private readonly opts: TmuxBackendOptions;
  /** Where the panes' processes run: `opts.host`, else this machine. */
  private readonly host: PaneHost;
  private place: Promise<LeaderPlace> | undefined;
  /** The window new teammates are split into (the leader's, then the latest overflow window). */
  private currentWindow: string | undefined;
  private queue: Promise<unknown> = Promise.resolve(); // never rejects
  /** Per server: the pane listing now running, and the one callers arriving meanwhile will share. */
  private readonly listings = new Map<TmuxServer, { current?: Promise<TmuxPane[]>; next?: Promise<TmuxPane[]> }>();
  /** This backend's own server's socket path, once asked (the `server` of the panes it creates). */
  private ownSocketPath: Promise<string> | undefined;
  private knownSocketPath: string | undefined;
  /** Servers of recorded panes other than this backend's own, by socket path. */
  private readonly recordedServers = new Map<string, TmuxServer>();

  constructor(opts: TmuxBackendOptions) {
    this.opts = opts;
    this.host = opts.host ?? LOCAL_HOST;
    this.server = new TmuxServer({ socket: opts.socket, exec: opts.exec });
    this.sessions = opts.insideTmux === undefined ? new TmuxTeamSessions(this.server) : undefined;
  }

  describe(): string {
    if (this.opts.insideTmux !== undefined) {
      return `tmux: teammates open beside the leader's pane ${this.opts.insideTmux.paneId} in this window`;
    }
    const socket = this.server.socket === undefined ? '' : ` -L ${this.server.socket}`;
    return `tmux${socket} attach -t ${this.opts.sessionName}`;
  }

  /** Outside tmux: attach to the pane (its window becomes current); inside: switch to it. */
  howToReach(pane: PaneRef): string {
    const id = pane.paneId;
    const server = this.serverOf(pane);
    if (this.opts.insideTmux === undefined || server !== this.server) return quote(['tmux', ...server.argv(['attach', '-t', id])]);
    return quote(['tmux', ...server.chainArgv([['select-window', '-t', id], ['select-pane', '-t', id]])]);
  }

  /**
   * Take this terminal to the pane: `attach -t <pane>` on the pane's server (its window becomes
   * current); from inside tmux on that same server, `switch-client` instead of a nested attach.
   */
  async attach(pane: PaneRef): Promise<void> {
    const server = this.serverOf(pane);
    const env: NodeJS.ProcessEnv = { ...process.env };
    const here = env.TMUX?.split(',')[0];
    const sameServer = here !== undefined && here !== '' && here === (pane.server ?? this.knownSocketPath);
    if (!sameServer) delete env.TMUX; // tmux refuses to nest otherwise
    const argv = server.argv(sameServer ? ['switch-client', '-t', pane.paneId] : ['attach', '-t', pane.paneId]);
    await execa('tmux', argv, { stdio: 'inherit', reject: false, env });
  }

  /** Find or create the leader's place (outside tmux: the `swarm-<team>` session). Idempotent. */
  ensureSession(): Promise<LeaderPlace> {
    if (this.place === undefined) {
      this.place = this.findPlace();
      void this.place.catch(() => {
        this.place = undefined; // let the next call retry
      });
    }
    return this.place;
  }

  createPane(spec: PaneSpec): Promise<PaneRef> {
    // A small promise queue: one creation at a time; a failure does not block the next.
    const run = this.queue.then(() => this.create(spec));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async isAlive(pane: PaneRef): Promise<boolean> {
    const found = await this.findPane(pane);
    if (found === undefined || found.dead) return false;
    return !found.shell || stillRunsInShell(found, await processChildren());
  }

  /**
   * One `list-panes -a` per server the panes are on (one in the usual case); a server that is not
   * running has no panes (`gone`); no tmux, or a failing one, answers `unknown`.
   */
  async probe(panes: readonly PaneRef[]): Promise<PaneState[]> {
    const servers = [...new Set(panes.map((pane) => this.serverOf(pane)))];
    const listed = new Map(
      await Promise.all(servers.map(async (server) => [server, await this.listPanesShared(server).catch(() => undefined)] as const)),
    );
    const found = panes.map((pane) => listed.get(this.serverOf(pane))?.find((p) => isThePane(p, pane)));
    const children = found.some((p) => p?.shell === true && !p.dead) ? await processChildren() : undefined;
    return panes.map((pane, i) => {
      if (listed.get(this.serverOf(pane)) === undefined) return 'unknown';
      const p = found[i];
      return p === undefined ? 'gone' : p.dead || (p.shell && !stillRunsInShell(p, children)) ? 'dead' : 'alive';
    });
  }

  /**
   * What create() runs in the usual case (room in the current window), from the same builders:
   * the session (outside tmux) and window options once, the split, the label and layout chain.
   */
  plan(spec: PaneSpec): PlanLine[] {
    const tmux = (args: readonly string[]): string[] => ['tmux', ...this.server.argv(args)];
    const chain = (commands: readonly (readonly string[])[]): string[] => ['tmux', ...this.server.chainArgv(commands)];
    const leader = this.opts.insideTmux?.paneId ?? firstPanePlaceholder(this.opts.sessionName);
    const window = '<leader window>';
    const planned = plannedPaneArgv(spec);
    const session: PlanLine[] = this.opts.insideTmux === undefined ? [{ run: tmux(newSessionArgs({ name: this.opts.sessionName })), once: true }] : [];
    return [
      ...session,
      { run: chain([...windowOptionCommands(window), ...this.leaderTitleCommands(leader)]), once: true },
      ...(planned.note === undefined ? [] : [{ note: planned.note }]),
      { run: tmux(splitWindowArgs({ cwd: spec.cwd, argv: planned.argv, target: `<largest teammate pane, else ${leader}>`, direction: 'h' })) },
      { run: chain(labelCommands('<new pane>', window, spec, 'main-vertical')) },
    ];
  }

  async kill(pane: PaneRef): Promise<void> {
    const timeout = this.opts.killTimeoutMs ?? 3000;
    const found = await this.findPane(pane);
    // The process to make sure of: the pane's (a dead pane's process may still be finishing its
    // exit when tmux already saw the pty close), or the recorded one if the pane is gone.
    const pid = found === undefined ? pane.pid : found.pid;
    // And what it started, listed before the kill (they are reparented once it is gone): in a
    // pane Claude Code made, its teammate runs under the pane's shell and may outlive it.
    // (On another host, `ps` runs there.)
    const started = found === undefined ? [] : await this.host.descendants(found.pid);
    if (found !== undefined) {
      try {
        await killPane(this.serverOf(pane), pane.paneId);
      } catch (e) {
        // Gone meanwhile is fine, and so is its server: a session's last pane closing ends it (a
        // server on its way out says "no current target"). Gone is verified below either way.
        if (!/can't find pane|no current target/i.test(String(e)) && !isNoServerMessage(String(e))) throw e;
      }
    }
    const paneGone = await pollUntil(
      async () => (await this.findPane(pane)) === undefined,
      timeout,
    );
    // On another host (ssh) they are ended there, through the connection.
    const processes = pid === undefined ? [] : [pid, ...started];
    const gone = await Promise.all(processes.map((p) => this.host.terminate(p, { waitMs: timeout / 3, termMs: timeout, killMs: timeout })));
    const alive = processes.filter((_, i) => !gone[i]);
    if (!paneGone || alive.length > 0) {
      const what = [paneGone ? '' : `pane ${pane.paneId} still listed`, alive.length === 0 ? '' : `process ${alive.join(', ')} still alive`]
        .filter(Boolean)
        .join(', ');
      throw new SwarmError('backend', `could not verify kill of tmux pane ${pane.paneId}: ${what}`);
    }
  }

  /** The whole history, so output at the top of a tall, otherwise empty pane is found; tmux's "Pane is dead" line left out. */
  async capture(pane: PaneRef, lines: number): Promise<PaneOutput> {
    const { text, exit } = await capturePaneWithExit(this.serverOf(pane), pane.paneId);
    const shown = text.split('\n').filter((l) => exit === undefined || !isDeadPaneNotice(l));
    return { lines: tailLines(shown.join('\n'), lines), exit };
  }

  // ---- internals -------------------------------------------------------------------------------

  /** The server a pane is on: the one recorded with it, else this backend's own. */
  private serverOf(pane: PaneRef): TmuxServer {
    const path = pane.server;
    if (path === undefined || path === '' || path === this.knownSocketPath || path === this.server.socketPath) return this.server;
    let server = this.recordedServers.get(path);
    if (server === undefined) {
      server = this.server.at(path);
      this.recordedServers.set(path, server);
    }
    return server;
  }

  /** This backend's own server's socket path (asked once; the server runs once a pane exists). */
  private socketPath(): Promise<string> {
    if (this.ownSocketPath === undefined) {
      this.ownSocketPath = socketPathOf(this.server).then((path) => (this.knownSocketPath = path));
      void this.ownSocketPath.catch(() => {
        this.ownSocketPath = undefined; // let the next call retry
      });
    }
    return this.ownSocketPath;
  }

  private async findPane(pane: PaneRef): Promise<TmuxPane | undefined> {
    return (await this.listPanesShared(this.serverOf(pane))).find((p) => isThePane(p, pane));
  }

  /**
   * `list-panes -a` on a server, coalesced: concurrent callers (the readiness checks of
   * overlapping spawns, kill verifications) share one invocation. A caller arriving while a
   * listing runs waits for the NEXT one, started after that ends, so nobody gets a list older than
   * its own call (a pane created just before must be in it).
   */
  private listPanesShared(server: TmuxServer = this.server): Promise<TmuxPane[]> {
    let l = this.listings.get(server);
    if (l === undefined) {
      l = {};
      this.listings.set(server, l);
    }
    const state = l;
    if (state.next !== undefined) return state.next;
    const before = state.current ?? Promise.resolve([]);
    const next = before
      .catch(() => [])
      .then(() => {
        state.next = undefined;
        state.current = current;
        return listAllPanes(server);
      });
    const current: Promise<TmuxPane[]> = next.finally(() => {
      if (state.current === current) state.current = undefined;
    });
    state.next = current;
    return current;
  }

  private async findPlace(): Promise<LeaderPlace> {
    let leaderPaneId: string;
    if (this.opts.insideTmux !== undefined) {
      leaderPaneId = this.opts.insideTmux.paneId;
    } else {
      leaderPaneId = await this.findOrCreateSession();
    }
    const ctx = await displayPaneContext(this.server, leaderPaneId);
    await this.server.runChain([...windowOptionCommands(ctx.windowId), ...this.leaderTitleCommands(leaderPaneId)]);
    return { sessionId: ctx.sessionId, windowId: ctx.windowId, leaderPaneId };
  }

  /** Outside tmux: the first pane of `swarm-<team>`, creating the session when missing. */
  private findOrCreateSession(): Promise<string> {
    return firstPaneOf(this.server, this.opts.sessionName);
  }

  /** The leader pane's title (`swarm lead · <team>`), when one was given. */
  private leaderTitleCommands(leaderPaneId: string): string[][] {
    return this.opts.leaderTitle === undefined ? [] : [setPaneTitleArgs(leaderPaneId, this.opts.leaderTitle)];
  }

  private async prepareWindow(windowId: string): Promise<void> {
    await this.server.runChain(windowOptionCommands(windowId));
  }

  // Three tmux invocations per teammate in the usual case: one `list-panes -a` with sizes (place
  // check + room check), the split itself (its id read back), and one chain labelling the pane and
  // re-laying out its window.
  private async create(spec: PaneSpec): Promise<PaneRef> {
    // Secrets stay off tmux's command line: the pane loads its environment from a private file
    // (pane-argv.ts), and tees its stderr into spec.stderrLog.
    const cmd = { cwd: spec.cwd, env: {}, argv: await this.host.paneArgv(spec) };
    const { place, inWindow, window, split } = await this.splitFresh(cmd);
    let pane = split;
    if (pane === undefined) pane = await this.openWindow(place.sessionId, cmd);
    this.currentWindow = pane.windowId;
    const count = pane.windowId === window ? inWindow.length + 1 : 1;
    const withLeader = pane.windowId === place.windowId;
    let server: string;
    try {
      await this.server.runChain(labelCommands(pane.paneId, pane.windowId, spec, chooseLayout(withLeader ? count - 1 : count, withLeader)));
      server = await this.socketPath();
    } catch (e) {
      await this.kill({ paneId: pane.paneId, backendType: 'tmux', pid: pane.pid }).catch(() => undefined);
      throw e;
    }
    return { paneId: pane.paneId, backendType: 'tmux', pid: pane.pid, server };
  }

  /**
   * The leader's place, re-checked, with every pane's geometry: if the swarm session was closed
   * meanwhile it is created again (outside tmux); a vanished overflow window is forgotten.
   */
  private async freshPlace(): Promise<{ place: LeaderPlace; panes: PaneGeometry[] }> {
    let place = await this.ensureSession();
    let panes = await listPaneGeometry(this.server);
    if (!panes.some((p) => p.paneId === place.leaderPaneId)) {
      if (this.opts.insideTmux !== undefined) {
        throw new SwarmError('backend', `the leader's tmux pane ${place.leaderPaneId} no longer exists`);
      }
      this.place = undefined;
      this.currentWindow = undefined;
      place = await this.ensureSession();
      panes = await listPaneGeometry(this.server);
    }
    if (this.currentWindow !== undefined && !panes.some((p) => p.windowId === this.currentWindow)) {
      this.currentWindow = undefined;
    }
    return { place, panes };
  }

  /**
   * The place, and a split of its current window's largest pane (undefined: no room). A pane closed
   * between the listing and the split (another teammate's exited pane, closed by whoever leads:
   * hibernation, a shutdown) makes tmux answer "can't find pane": listed again and tried again.
   */
  private async splitFresh(cmd: { cwd: string; env: Record<string, string>; argv: string[] }) {
    for (let attempt = 1; ; attempt++) {
      const { place, panes } = await this.freshPlace();
      const window = this.currentWindow ?? place.windowId;
      const inWindow = panes.filter((p) => p.windowId === window);
      try {
        return { place, inWindow, window, split: await this.trySplit(inWindow, cmd, place.leaderPaneId) };
      } catch (e) {
        if (attempt >= SPLIT_ATTEMPTS || !/can't find pane/i.test(String(e))) throw e;
      }
    }
  }

  /**
   * Split the largest pane of the window whose panes are `sizes` (the leader's only while it is
   * alone) when the re-laid-out window still has room (`roomForAnother`); undefined when it has
   * none or tmux says "no space".
   */
  private async trySplit(
    sizes: readonly PaneGeometry[],
    cmd: { cwd: string; env: Record<string, string>; argv: string[] },
    leaderPaneId: string,
  ): Promise<NewPane | undefined> {
    const first = sizes[0];
    if (first === undefined) return undefined;
    const withLeader = sizes.some((p) => p.paneId === leaderPaneId);
    if (!roomForAnother(first.window, sizes.length, withLeader, this.opts.minPaneSize)) return undefined;
    const others = sizes.filter((p) => p.paneId !== leaderPaneId);
    const candidates = others.length > 0 ? others : sizes;
    const largest = [...candidates].sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (largest === undefined) return undefined;
    for (const direction of splitOrder(largest.width, largest.height)) {
      try {
        return await splitWindow(this.server, { ...cmd, target: largest.paneId, direction });
      } catch (e) {
        if (!isNoSpaceError(e)) throw e;
      }
    }
    return undefined;
  }

  /** A new window in the leader's session whose first pane runs the teammate. */
  private async openWindow(
    sessionId: string,
    cmd: { cwd: string; env: Record<string, string>; argv: string[] },
  ): Promise<NewPane> {
    const holder = await newWindow(this.server, {
      session: sessionId,
      name: this.opts.sessionName,
      argv: PLACEHOLDER_ARGV,
    });
    try {
      await this.prepareWindow(holder.windowId);
      await respawnPane(this.server, { ...cmd, target: holder.paneId });
    } catch (e) {
      await killPane(this.server, holder.paneId).catch(() => undefined); // the placeholder, and its window
      throw e;
    }
    const after = (await listAllPanes(this.server)).find((p) => p.paneId === holder.paneId);
    if (after === undefined) throw new SwarmError('backend', `tmux pane ${holder.paneId} vanished after respawn`);
    return { paneId: holder.paneId, pid: after.pid, windowId: holder.windowId };
  }
}
