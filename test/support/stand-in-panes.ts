// A pane backend standing in for tmux, for the in-process tests of spawn's and resume's guards: a
// new pane is, by default, a live `sleep` that writes the member's status file as a swarm teammate
// does (and, with `takePrompt`, takes its prompt), so readiness is the real handshake. It records
// the panes made, killed and probed; `create` replaces what a new pane is, and `old` is what the
// probe says of any pane it did not make. `useStandInTeam` sets up what those tests stand on.
// `settablePanes` is the plainer kind, for tests of what happens to panes that exist already: a pane
// lives while the test keeps its id in `alive`.
import { beforeEach } from 'vitest';
import type { Backend, PaneRef, PaneSpec, PaneState } from '../../src/backends/backend.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { createTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { startSleeper, writeStatus } from './team-fixture.js';
import { tempRoot } from './tmp-root.js';

/** Before each test: team `t` in a fresh root and a fresh working directory (`set` gets them); after it, its sleepers are stopped. */
export function useStandInTeam(cwdPrefix: string, set: (s: { root: string; team: Team; cwd: string }) => void): void {
  beforeEach(async () => {
    const root = await tempRoot();
    await createTeam(root, { name: 't' });
    set({ root, team: new Team(root, 't'), cwd: await tempRoot(cwdPrefix) });
  });
}

export interface StandInPanes extends Backend {
  made: PaneSpec[];
  kills: string[];
  probed: string[];
}

export function standInPanes(
  team: Team,
  o: { create?: (spec: PaneSpec) => Promise<PaneRef>; old?: PaneState; takePrompt?: boolean; paneIds?: string; started?: (spec: PaneSpec) => void } = {},
): StandInPanes {
  const made: PaneSpec[] = [];
  const kills: string[] = [];
  const probed: string[] = [];
  const live = new Set<string>();
  return {
    type: 'tmux',
    made,
    kills,
    probed,
    createPane: async (spec) => {
      made.push(spec);
      if (o.create) return o.create(spec);
      const pid = await startSleeper();
      const paneId = `%${o.paneIds ?? ''}${made.length}`;
      live.add(paneId);
      await writeStatus(team.root, team.name, spec.name, { pid });
      if (o.takePrompt) await new Mailbox({ team }).consume(spec.name);
      o.started?.(spec);
      return { paneId, backendType: 'tmux', pid };
    },
    isAlive: async (p) => live.has(p.paneId),
    probe: async (ps) => ps.map((p) => (probed.push(p.paneId), live.has(p.paneId) ? 'alive' : (o.old ?? 'gone'))),
    kill: async (p) => {
      kills.push(p.paneId);
      live.delete(p.paneId);
    },
    capture: async () => ({ lines: [] }),
    plan: () => [],
    describe: () => 'stand-in panes',
    howToReach: () => 'nowhere',
  };
}

export interface SettablePanes {
  backend: Backend;
  /** The ids of the panes alive now: the test adds and removes them. */
  alive: Set<string>;
  kills: PaneRef[];
  /** Run in turn before each liveness answer (e.g. to act while the caller waits on one). */
  seen: (() => Promise<void>)[];
  /** How many times isAlive was asked. */
  asked: () => number;
}

/** A pane backend that makes no pane; a pane lives while its id is in `alive`. `extra` replaces any method. */
export function settablePanes(extra: Partial<Backend> = {}): SettablePanes {
  const alive = new Set<string>();
  const kills: PaneRef[] = [];
  const seen: (() => Promise<void>)[] = [];
  let asked = 0;
  const backend: Backend = {
    type: 'tmux',
    createPane: () => Promise.reject(new Error('no pane is created here')),
    isAlive: async (p) => {
      asked++;
      await seen.shift()?.();
      return alive.has(p.paneId);
    },
    probe: async (ps) => ps.map((p) => (alive.has(p.paneId) ? 'alive' : 'gone')),
    kill: async (p) => {
      kills.push(p);
      alive.delete(p.paneId);
    },
    capture: async () => ({ lines: [] }),
    plan: () => [],
    describe: () => 'stand-in panes',
    howToReach: () => 'nowhere',
    ...extra,
  };
  return { backend, alive, kills, seen, asked: () => asked };
}
