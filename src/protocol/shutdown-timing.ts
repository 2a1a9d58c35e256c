// The timing of a cooperative shutdown (docs/protocol.md#teammate-runtime, docs/protocol.md#cli), declared once for both sides:
//   grace — how long a swarm teammate waits for its model to answer a signed shutdown_request
//           before it exits anyway (SWARM_SHUTDOWN_GRACE_MS, default 30 s);
//   wait  — how long the leader (`swarm shutdown`, the console's /shutdown) waits for the answer or
//           the exit by default: the grace plus a margin, so a teammate that exits at the end of its
//           grace is seen exiting instead of being reported "still running" a second before it goes.
//   end of a run — how long the shutdown of the whole team at the end of a run (`swarm run -p`,
//           leaving a console) waits for answers before it kills (END_OF_RUN_SHUTDOWN_MS, 20 s):
//           the team is told the run is over, so it does not get the full grace.
// The leader reads the grace from its own environment, which is what it forwards to the teammates
// it spawns (every SWARM_* variable).
import { SwarmError } from './errors.js';

export const SHUTDOWN_GRACE_ENV = 'SWARM_SHUTDOWN_GRACE_MS';
export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;
export const SHUTDOWN_WAIT_MARGIN_MS = 10_000;
export const END_OF_RUN_SHUTDOWN_MS = 20_000;

/** The teammate's grace period in ms, from SWARM_SHUTDOWN_GRACE_MS (an integer >= 0) or the default. */
export function shutdownGraceMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[SHUTDOWN_GRACE_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_SHUTDOWN_GRACE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new SwarmError('invalid_input', `${SHUTDOWN_GRACE_ENV}: expected an integer >= 0, got ${JSON.stringify(raw)}`);
  return n;
}

/** The leader's default wait for a shutdown, in ms: the grace plus the margin. */
export function shutdownWaitMs(env: Readonly<Record<string, string | undefined>>): number {
  return shutdownGraceMs(env) + SHUTDOWN_WAIT_MARGIN_MS;
}
