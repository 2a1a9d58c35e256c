// The one small interface every pane backend implements (tmux, iTerm2 via it2, in-process).
// Nothing outside backends/ branches on which backend it is: callers hold a `Backend` and a
// `PaneRef` and call these methods. A backend takes its own options in its constructor.

export type BackendType = 'tmux' | 'iterm2' | 'in-process';

/** What to run in a new pane. `argv` is executed directly (never typed into a shell). */
export interface PaneSpec {
  team: string;
  /** Member name; becomes the pane title. */
  name: string;
  /** Palette colour name (SPEC §3.1), e.g. "blue". */
  color: string;
  argv: string[];
  /** Extra environment for the pane's process (forwarded variables, SWARM_*). */
  env: Record<string, string>;
  cwd: string;
}

/** A pane as recorded in config.json: `tmuxPaneId` + `backendType` (+ pid when known). */
export interface PaneRef {
  paneId: string;
  backendType: BackendType;
  pid?: number;
  /** The member name. The in-process backend needs it: all its panes are `in-process`. */
  name?: string;
}

export interface Backend {
  readonly type: BackendType;
  /** Create a pane running `spec.argv`, titled and coloured; resolves once the process exists. */
  createPane(spec: PaneSpec): Promise<PaneRef>;
  /** True while the pane exists and its process has not exited. */
  isAlive(pane: PaneRef): Promise<boolean>;
  /** Kill the pane and its process; resolves only after verifying both are gone. */
  kill(pane: PaneRef): Promise<void>;
  /** The last `lines` lines of the pane's output (for spawn-failure reports). */
  capture(pane: PaneRef, lines: number): Promise<string>;
  /** One human line: where the panes are and how to see them (e.g. the `tmux attach` command). */
  describe(): string;
}
