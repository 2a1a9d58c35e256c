// Is a teammate really alive? config.json says what was started (`tmuxPaneId`, `backendType`,
// `pid`, `isActive`); this checks it against reality, for `swarm status` and `swarm doctor`.
//
// One probe per backend kind, whatever the team size: the recorded panes are grouped by backend
// (the registry maps a record to its kind, old records by their id's shape), each backend answers
// for its whole group in one call (`Backend.probe`: alive / dead / gone / unknown when it cannot
// ask), and a zombie-aware pid check is added, except for a member on another machine (`host`):
// its pid is not this machine's. A backend that cannot answer leaves the pid to decide alone. `judgeLiveness` is pure: facts in, verdict out.
import type { PaneRef, PaneState as ProbedState } from '../backends/backend.js';
import { recordedBackendType } from '../backends/kinds.js';
import type { Exec } from '../backends/process.js';
import type { BackendContext, Env } from '../backends/registry.js';
import { isProcessAlive } from '../storage/pid.js';
import type { BackendType, Member } from '../protocol/config.js';
import type { Team } from '../team/team.js';

/** What config.json records about where a member runs. */
export interface RecordedPane {
  backendType?: string | undefined;
  /** `tmuxPaneId`: "" until created; tmux "%N", an iTerm2 session id, or "in-process". */
  paneId: string;
  pid?: number | undefined;
  /** The member's name (in-process panes all share the id `in-process`). */
  name?: string | undefined;
  /** `paneServer`: where the backend's pane lives (opaque; tmux: its server's socket path). */
  server?: string | undefined;
  /** `host`: the machine it runs on (ssh); its pid means nothing on this one. */
  host?: string | undefined;
}

/** What config.json records about a member's pane; `pid` when another source knows it better. */
export function recordedPaneOf(m: Member, pid: number | undefined = m.pid): RecordedPane {
  return { backendType: m.backendType, paneId: m.tmuxPaneId, pid, name: m.name, server: m.paneServer, host: m.host };
}

/** `none`: no pane to check (not created yet, or no known backend); else what its backend said. */
export type PaneState = 'none' | ProbedState;

export interface Liveness {
  pane: PaneState;
  /** The pid's verdict, or null when no pid is recorded. */
  pidAlive: boolean | null;
  /** Overall: false when the pane or the pid is known dead, true when one is known alive, else null. */
  alive: boolean | null;
}

/** What the backends reported, gathered once for a whole roster. */
export interface LivenessFacts {
  /** By `paneKey`; a pane missing here had no backend to ask. */
  panes: ReadonlyMap<string, ProbedState>;
  isAlive: (pid: number) => boolean;
}

/** Which recorded pane an answer is for (the pid is checked on its own). */
export function paneKey(p: RecordedPane): string {
  return JSON.stringify([recordedBackendType(p) ?? null, p.host ?? null, p.server ?? null, p.paneId, p.name ?? null]);
}

/**
 * The verdict from the facts. A member on another machine (`host`) is never judged by a local pid
 * check: the same number here is some other process, or none (its backend asked there instead).
 */
export function judgeLiveness(p: RecordedPane, facts: LivenessFacts): Liveness {
  const pidAlive = p.pid === undefined || p.host !== undefined ? null : facts.isAlive(p.pid);
  const pane: PaneState = facts.panes.get(paneKey(p)) ?? 'none';
  let alive: boolean | null = null;
  if (pane === 'dead' || pane === 'gone' || pidAlive === false) alive = false;
  else if (pane === 'alive' || pidAlive === true) alive = true;
  return { pane, pidAlive, alive };
}

export interface ProbeOptions {
  /** The team the panes belong to (the in-process backend asks that team's host). */
  team: Team;
  /** SWARM_TMUX_SOCKET picks the tmux server; PATH decides which `it2` runs. Default: this process's. */
  env?: Env | undefined;
  exec?: Exec | undefined;
  isAlive?: ((pid: number) => boolean) | undefined;
}

/** Ask each backend the roster uses, once. Never throws: a backend that fails answers `unknown`. */
export async function gatherLivenessFacts(panes: readonly RecordedPane[], opts: ProbeOptions): Promise<LivenessFacts> {
  const ctx: BackendContext = {
    env: opts.env ?? process.env,
    ...(opts.exec !== undefined ? { exec: opts.exec } : {}),
  };
  const groups = new Map<BackendType, RecordedPane[]>();
  for (const p of panes) {
    const type = recordedBackendType(p);
    if (type !== undefined) groups.set(type, [...(groups.get(type) ?? []), p]);
  }
  const answers = new Map<string, ProbedState>();
  const isAlive = opts.isAlive ?? isProcessAlive;
  if (groups.size === 0) return { panes: answers, isAlive };
  // Loaded only for a roster with panes: the backends (tmux, iTerm2, ssh, execa) would cost every
  // status of a team without one its start-up time.
  const { backendForType } = await import('../backends/registry.js');
  await Promise.all(
    [...groups].map(async ([type, group]) => {
      const refs: PaneRef[] = group.map((p) => ({
        paneId: p.paneId,
        backendType: type,
        ...(p.pid !== undefined ? { pid: p.pid } : {}),
        ...(p.name !== undefined ? { name: p.name } : {}),
        ...(p.server !== undefined ? { server: p.server } : {}),
        ...(p.host !== undefined ? { host: p.host } : {}),
      }));
      let states: ProbedState[];
      try {
        states = await backendForType(type, opts.team, ctx).probe(refs);
      } catch {
        states = refs.map(() => 'unknown'); // the pid decides
      }
      group.forEach((p, i) => answers.set(paneKey(p), states[i] ?? 'unknown'));
    }),
  );
  return { panes: answers, isAlive };
}
