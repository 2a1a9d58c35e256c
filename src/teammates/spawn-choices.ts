// What a spawn may be asked for beyond the teammate's command line, and how long it waits: plain
// values, apart from spawn.ts and readiness.ts so that `swarm spawn --help`, `swarm resume --help`
// and a team file's check show them without loading the spawn code (backends, execa, the watchers).

/** `--isolation` values: `worktree` runs the teammate in its own git worktree (docs/protocol.md#agent-types-and-worktrees). */
export const ISOLATIONS = ['worktree'] as const;
export type Isolation = (typeof ISOLATIONS)[number];

/** How long a spawn or resume waits for the teammate to be ready, unless told otherwise. */
export const DEFAULT_READY_TIMEOUT_MS = 20_000;
