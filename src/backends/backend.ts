// The one small interface every pane backend implements (tmux, iTerm2 via it2, in-process).
// Nothing outside backends/ branches on which backend it is: callers hold a `Backend` and a
// `PaneRef` and call these methods. A backend takes its own options in its constructor.
// Optional capabilities (`sessions`, `attach`) are checked for, never inferred from `type`.
import type { BackendType } from '../protocol/config.js';

export type { BackendType };

/** What to run in a new pane. `argv` is executed directly (never typed into a shell). */
export interface PaneSpec {
  team: string;
  /** Member name; becomes the pane title. */
  name: string;
  /** Palette colour name (docs/protocol.md#names-and-ids), e.g. "blue". */
  color: string;
  argv: string[];
  /** Extra environment for the pane's process (forwarded variables, SWARM_*). */
  env: Record<string, string>;
  cwd: string;
  /** A file that also gets the process's stderr (appended; the pane still shows it). */
  stderrLog?: string | undefined;
}

/** A pane as recorded in config.json: `tmuxPaneId` + `backendType` (+ pid, `paneServer` when known). */
export interface PaneRef {
  paneId: string;
  backendType: BackendType;
  pid?: number;
  /**
   * Where the pane lives, so any shell finds it again (config.json `paneServer`). Opaque outside
   * the backend that sets it (tmux: its server's socket path); unset when the backend has one place.
   */
  server?: string | undefined;
  /** The member name. The in-process backend needs it: all its panes are `in-process`. */
  name?: string;
  /** The machine the pane's process runs on (config.json `host`, `[user@]host[:port]`); unset = this one. */
  host?: string | undefined;
}

/**
 * What a backend reports about a pane: `alive`; `dead` (still listed but its process exited,
 * tmux remain-on-exit); `gone` (not listed); `unknown` (the backend could not be asked).
 */
export type PaneState = 'alive' | 'dead' | 'gone' | 'unknown';

/** How a pane's process ended: its exit code, or the number of the signal that killed it. */
export type PaneExit = { code: number } | { signal: number };

/** What a pane shows (for spawn-failure reports and for recognising a prompt waiting in it). */
export interface PaneOutput {
  /** Its last non-blank lines, scrollback included, oldest first, right-trimmed. */
  lines: string[];
  /** How its process ended; undefined while it runs, or when the backend cannot tell. */
  exit?: PaneExit | undefined;
}

/**
 * One line of a dry-run plan: a command the backend would run (argv, executable first) or a note.
 * `once`: the same for every pane (the session, a window's options), printed once.
 * Values that exist only at run time are `<placeholders>`.
 */
export type PlanLine = { run: string[]; once?: boolean } | { note: string; once?: boolean };

export interface Backend {
  readonly type: BackendType;
  /** Create a pane running `spec.argv`, titled and coloured; resolves once the process exists. */
  createPane(spec: PaneSpec): Promise<PaneRef>;
  /** True while the pane exists and its process has not exited. */
  isAlive(pane: PaneRef): Promise<boolean>;
  /** The state of each pane, in order, with one backend call whatever their number. Never throws. */
  probe(panes: readonly PaneRef[]): Promise<PaneState[]>;
  /** Kill the pane, its process and what that process started; resolves only after verifying all are gone. */
  kill(pane: PaneRef): Promise<void>;
  /** The pane's last `lines` non-blank lines (the backend's own notices left out) and how it ended. */
  capture(pane: PaneRef, lines: number): Promise<PaneOutput>;
  /** What createPane(spec) would run, built by the same code, without running anything. */
  plan(spec: PaneSpec): PlanLine[];
  /** One human line: where the panes are and how to see them (e.g. the `tmux attach` command). */
  describe(): string;
  /** One human line: how a person gets to this pane to type into it (the exact command when there is one). */
  howToReach(pane: PaneRef): string;
  /**
   * True when the panes' processes run on another machine: their pids mean nothing here (never
   * `process.kill` them); ask `isAlive`/`probe`/`kill`, which go there.
   */
  readonly remoteProcesses?: boolean;
  /** The swarm command the pane's machine runs teammates with (`swarm` on its PATH); unset = this process's own. */
  readonly teammateExecutable?: readonly string[] | undefined;
  /** Present when the team's panes live in a named session that swarm creates (tmux outside tmux). */
  readonly sessions?: TeamSessions | undefined;
  /**
   * Present when this terminal can be taken to the pane (tmux): what `howToReach` prints, run here
   * with the terminal handed over; resolves when the person leaves it (detaches).
   */
  attach?(pane: PaneRef): Promise<void>;
}

/** A command for the leader console's pane. */
export interface ConsoleCommand {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/** The leader console running in the first pane of its team's session. */
export interface SessionConsole {
  paneId: string;
  /** The attach command, executable first (for printing). */
  attach: string[];
  /** Attach this terminal to the session; resolves when the user detaches. */
  attachHere(): Promise<void>;
  /** Resolves once the console's pane has exited or is gone (checked every second). */
  ended(signal: AbortSignal): Promise<void>;
}

/** A session swarm made for a team, as listed on the server. */
export interface ListedSession {
  name: string;
  team: string;
  /** Its panes' processes; `dead` ones exited under remain-on-exit. */
  panes: { pid: number; dead: boolean }[];
}

/** Named per-team sessions (`swarm-<team>`) on a server: only tmux has them. */
export interface TeamSessions {
  /** The session name of a team. */
  nameOf(team: string): string;
  exists(team: string): Promise<boolean>;
  /** Every team session on the server (sessions with other names are left out). */
  list(): Promise<ListedSession[]>;
  /** Run the console in the first pane of the team's session (created if missing); the pane closes when it exits. */
  runConsole(team: string, cmd: ConsoleCommand): Promise<SessionConsole>;
  /** What runConsole would run (dry run). */
  planConsole(team: string, cmd: ConsoleCommand): PlanLine[];
  /**
   * No console will run: close the session's first pane (the one runConsole would use), so the
   * session ends with its last teammate instead of keeping a bare shell; the whole session when
   * no other pane is left. Nothing to do when there is no session.
   */
  dropConsolePane(team: string): Promise<void>;
  /** What dropConsolePane would run (dry run). */
  planDropConsolePane(team: string): PlanLine[];
  /** The kill command as a shell line (for a doctor's fix text). */
  killLine(team: string): string;
  /** Kill the team's session if it exists; resolves once verified gone. */
  kill(team: string): Promise<void>;
}
