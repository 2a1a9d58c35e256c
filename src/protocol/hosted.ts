// Records of the in-process backend (teammates hosted inside the leader console), docs/protocol.md#backends.
//
// On disk, under teams/<team>/:
//   config.json            swarm.inProcessHost = {pid, startedAt}: the running host, if any
//   hosted/<name>.spawn.json        a spawn request dropped by `swarm spawn` (another process)
//   hosted/<name>.spawn-error.json  the host's refusal of that request
//   hosted/<name>.state.json        the host's view of the teammate: running/exited + last output
//   hosted/<name>.kill.json         a kill request; the host deletes it (and the state) when done
// Every file is written atomically; the host is the only writer of state and spawn-error files.
import * as z from 'zod';

/** The `<kind>` of a `hosted/<name>.<kind>.json` file. */
export type HostedFileKind = 'spawn' | 'spawn-error' | 'state' | 'kill';

export const InProcessHostRegistrationSchema = z.looseObject({
  pid: z.number().int().positive(),
  startedAt: z.number(),
});
export type InProcessHostRegistration = z.infer<typeof InProcessHostRegistrationSchema>;

export const HostedSpawnRequestSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  color: z.string(),
  argv: z.array(z.string()).min(1),
  env: z.record(z.string(), z.string()),
  cwd: z.string(),
  /** Where the teammate's error output is also kept (PaneSpec.stderrLog). */
  stderrLog: z.string().optional(),
  requestedAt: z.number(),
});
export type HostedSpawnRequest = z.infer<typeof HostedSpawnRequestSchema>;

export const HostedSpawnErrorSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  message: z.string(),
});
export type HostedSpawnError = z.infer<typeof HostedSpawnErrorSchema>;

export const HostedStateSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  state: z.enum(['running', 'exited']),
  /** The host's pid: in-process teammates share it. */
  pid: z.number().int(),
  startedAt: z.number(),
  exitedAt: z.number().optional(),
  exitCode: z.number().int().optional(),
  /** The teammate's last output lines (ring buffer), oldest first. */
  output: z.array(z.string()).default([]),
});
export type HostedState = z.infer<typeof HostedStateSchema>;

export const HostedKillRequestSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  requestedAt: z.number(),
});
export type HostedKillRequest = z.infer<typeof HostedKillRequestSchema>;
