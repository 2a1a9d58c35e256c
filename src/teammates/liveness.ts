// Is a teammate really alive? config.json says what was started (`tmuxPaneId`, `backendType`,
// `pid`, `isActive`); this checks it against reality, for `swarm status` and `swarm doctor`.
//
// One probe per backend kind, whatever the team size: one `tmux list-panes -a` on the right server
// (SWARM_TMUX_SOCKET → `-L`; a pane that is not listed is gone, one listed with `pane_dead` has
// exited under remain-on-exit), one `it2 session list` when a member uses iTerm2, and a zombie-aware
// pid check. A probe that cannot run (tmux not installed, it2 unusable) answers "unknown", and the
// pid decides alone. `judgeLiveness` is pure: facts in, verdict out.
import type { TmuxPane } from '../backends/tmux/commands.js';
import { TmuxServer, listAllPanes } from '../backends/tmux/commands.js';
import { It2Cli, listSessions } from '../backends/iterm2/it2-commands.js';
import { type Exec, execaExec, isProcessAlive } from '../backends/process.js';

/** What config.json records about where a member runs. */
export interface RecordedPane {
  backendType?: string | undefined;
  /** `tmuxPaneId`: "" until created; tmux "%N", an iTerm2 session id, or "in-process". */
  paneId: string;
  pid?: number | undefined;
}

/**
 * - `none`: no pane to check (not created yet, or in-process);
 * - `alive` / `dead` (listed but its process exited, tmux remain-on-exit) / `gone` (not listed);
 * - `unknown`: the backend could not be asked.
 */
export type PaneState = 'none' | 'alive' | 'dead' | 'gone' | 'unknown';

export interface Liveness {
  pane: PaneState;
  /** The pid's verdict, or null when no pid is recorded. */
  pidAlive: boolean | null;
  /** Overall: false when the pane or the pid is known dead, true when one is known alive, else null. */
  alive: boolean | null;
}

/** What the backends reported, gathered once for a whole roster. `undefined` = could not ask. */
export interface LivenessFacts {
  tmuxPanes: readonly TmuxPane[] | undefined;
  it2Sessions: readonly string[] | undefined;
  isAlive: (pid: number) => boolean;
}

export type PaneKind = 'tmux' | 'iterm2' | 'in-process' | 'none';

/** Which backend a recorded pane belongs to (an old record without backendType: by id shape). */
export function paneKind(p: RecordedPane): PaneKind {
  if (p.paneId === '') return 'none';
  if (p.backendType === 'in-process' || p.paneId === 'in-process') return 'in-process';
  if (p.backendType === 'tmux' || (p.backendType === undefined && /^%\d+$/.test(p.paneId))) return 'tmux';
  if (p.backendType === 'iterm2') return 'iterm2';
  return 'none';
}

export function judgeLiveness(p: RecordedPane, facts: LivenessFacts): Liveness {
  const pidAlive = p.pid === undefined ? null : facts.isAlive(p.pid);
  let pane: PaneState;
  switch (paneKind(p)) {
    case 'tmux': {
      if (facts.tmuxPanes === undefined) pane = 'unknown';
      else {
        const found = facts.tmuxPanes.find((x) => x.paneId === p.paneId);
        pane = found === undefined ? 'gone' : found.dead ? 'dead' : 'alive';
      }
      break;
    }
    case 'iterm2':
      pane = facts.it2Sessions === undefined ? 'unknown' : facts.it2Sessions.includes(p.paneId) ? 'alive' : 'gone';
      break;
    default:
      pane = 'none';
  }
  let alive: boolean | null = null;
  if (pane === 'dead' || pane === 'gone' || pidAlive === false) alive = false;
  else if (pane === 'alive' || pidAlive === true) alive = true;
  return { pane, pidAlive, alive };
}

export interface ProbeOptions {
  /** SWARM_TMUX_SOCKET: the private tmux server (`-L`); unset = the current/default server. */
  tmuxSocket?: string | undefined;
  exec?: Exec;
  /** Environment for `it2` (PATH decides which one runs). Default: this process's. */
  env?: Record<string, string | undefined>;
  isAlive?: (pid: number) => boolean;
}

/** Ask each backend the roster uses, once. Never throws: a backend that fails answers undefined. */
export async function gatherLivenessFacts(panes: readonly RecordedPane[], opts: ProbeOptions = {}): Promise<LivenessFacts> {
  const exec = opts.exec ?? execaExec;
  const kinds = new Set(panes.map(paneKind));
  let tmuxPanes: TmuxPane[] | undefined;
  if (kinds.has('tmux')) {
    try {
      tmuxPanes = await listAllPanes(new TmuxServer({ socket: opts.tmuxSocket, exec }));
    } catch {
      tmuxPanes = undefined; // tmux missing or failing: the pid decides
    }
  }
  let it2Sessions: string[] | undefined;
  if (kinds.has('iterm2')) {
    try {
      it2Sessions = await listSessions(new It2Cli({ exec, ...(opts.env ? { env: opts.env } : {}) }));
    } catch {
      it2Sessions = undefined;
    }
  }
  return { tmuxPanes, it2Sessions, isAlive: opts.isAlive ?? isProcessAlive };
}

/** Liveness of each recorded pane, in order. */
export async function probeLiveness(panes: readonly RecordedPane[], opts: ProbeOptions = {}): Promise<Liveness[]> {
  const facts = await gatherLivenessFacts(panes, opts);
  return panes.map((p) => judgeLiveness(p, facts));
}
