// Where the in-process backend's files live and how they are read (layout and schemas in
// protocol/hosted.ts). Reads here are lenient: a missing or half-understood file is `undefined`,
// never an exception, because the host rewrites them continually and a reader just looks again.
import { promises as fs } from 'node:fs';
import type * as z from 'zod';
import { SwarmError, errnoCode } from '../../protocol/errors.js';
import { InProcessHostRegistrationSchema, type HostedFileKind, type InProcessHostRegistration } from '../../protocol/hosted.js';
import { parseText } from '../../storage/json-file.js';
import { readTeam, teamExists } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { isProcessAlive } from '../process.js';

/** `<name>.<kind>.json` → its parts; undefined for any other file (temp files included). */
export function parseHostedFileName(file: string): { name: string; kind: HostedFileKind } | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.(spawn|spawn-error|state|kill)\.json$/.exec(file);
  return m ? { name: m[1]!, kind: m[2] as HostedFileKind } : undefined;
}

/** Parse a JSON file with `schema`; undefined when it is missing or does not parse. */
export async function readRecord<T>(file: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  const parsed = parseText(raw, schema);
  return parsed.ok ? parsed.value : undefined;
}

/** The host registered in config.json (`swarm.inProcessHost`), alive or not. */
export async function readHostRegistration(team: Team): Promise<InProcessHostRegistration | undefined> {
  const config = await readTeam(team);
  const parsed = InProcessHostRegistrationSchema.safeParse(config.swarm?.inProcessHost);
  return parsed.success ? parsed.data : undefined;
}

/** The registered host if its process is alive; a team not created yet (a launch's dry run) has none. */
export async function liveHost(team: Team): Promise<InProcessHostRegistration | undefined> {
  if (!(await teamExists(team))) return undefined;
  const reg = await readHostRegistration(team);
  return reg !== undefined && isProcessAlive(reg.pid) ? reg : undefined;
}

export function noHostError(team: string): SwarmError {
  return new SwarmError(
    'not_found',
    `no in-process host is running for team "${team}": start the leader console first (swarm lead --team ${team}), or use --backend tmux`,
  );
}
