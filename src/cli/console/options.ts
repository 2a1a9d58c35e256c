// What the leader console (console.ts) is opened with: by `swarm lead`, `swarm run`, `swarm launch`
// and `swarm demo` (through run.ts, which loads the console only when one really opens).
import type { InProcessHost } from '../../backends/in-process/host.js';
import type { Team } from '../../team/team.js';
import type { ConsoleLeadOptions } from './lead-in-console.js';

export interface ConsoleOptions {
  team: Team;
  env: NodeJS.ProcessEnv;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  /** An in-process host already open in this process (launch/demo); else the console opens one. */
  host?: InProcessHost;
  /** Printed first (e.g. the demo's "scripted model" notice). */
  banner?: readonly string[];
  /** Printed (once per episode) when every teammate is idle and nothing is pending. */
  allIdleHint?: string;
  /**
   * Leave the console once the last teammate is gone (the demo, which then cleans up); with an agent
   * lead, once the lead has finished with no teammate left. Otherwise the console only says how to leave.
   */
  endWithLastTeammate?: boolean;
  /** Leave the console (without shutting the team down) when this aborts. */
  signal?: AbortSignal;
  /** How long `shutdown --all` on exit waits for answers before killing. Default END_OF_RUN_SHUTDOWN_MS (20 s). */
  exitShutdownTimeoutMs?: number;
  /** Run an agent lead in the console (docs/protocol.md#agent-lead). */
  lead?: ConsoleLeadOptions;
  /** Ask the lease holder to hand over, and wait for it, before opening (`--take-over`). */
  takeOver?: boolean;
  /** Where the last words go when the terminal is gone (SIGHUP, a closed output). Default stderr. */
  errorOutput?: NodeJS.WritableStream;
  /**
   * Once it has left because of SIGTERM, SIGHUP or a closed output, end the process by it
   * (cli/interrupts.ts) instead of returning: `swarm lead`, `run`, `launch`. Unset for the demo,
   * which cleans up after its console and ends the process itself.
   */
  dieOfInterrupt?: boolean;
}
