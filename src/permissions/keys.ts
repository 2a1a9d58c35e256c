// The leader's per-team Ed25519 key file (docs/protocol.md#the-swarm-directory).
//
// On disk: `<root>/swarm/keys/<team>.key` (directory 0700, file 0600), outside `teams/` so the
// teammates' file tools (which refuse `teams/` and `swarm/`) cannot reach it. Contents, pretty JSON:
//   { "version": 1, "createdAt": <epoch ms>, "privateKeyPem": "-----BEGIN PRIVATE KEY-----\n..." }
// privateKeyPem is the PKCS#8 PEM of the Ed25519 private key; the public verify key
// `<createdAt>.<base64url SPKI DER>` is derived from it on every load.
//
// Creation rule: no lock. A creator writes a complete temp file (0600, fsync'd) next to the target
// and hard-links it to `<team>.key`; link() fails with EEXIST if another process got there first, in
// which case the loser discards its key and loads the winner's. So concurrent callers always end
// with the same key, and a reader never sees a half-written file. (Needs a file system with hard
// links, i.e. any local POSIX one.) An existing key file is never overwritten.
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { createFileExclusive, DIR_MODE, ensureDir, formatJson } from '../storage/atomic.js';
import { keysDir } from '../team/paths.js';
import { deleteTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import { formatVerifyKey, generateLeadKeyPair } from './signing.js';


export const LeadKeyFileSchema = z.object({
  version: z.literal(1),
  createdAt: z.number().int().nonnegative(),
  privateKeyPem: z.string().min(1),
});
export type LeadKeyFile = z.infer<typeof LeadKeyFileSchema>;

export interface LeadKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  createdAt: number;
  /** The `--lead-verify-key` value: `<createdAtMs>.<base64url SPKI DER>`. */
  verifyKey: string;
}

/** `<root>/swarm/keys/<team>.key` (the name was validated when the handle was made). */
export function leadKeyPath(team: Team): string {
  return team.paths.leadKey;
}

function fromFile(file: string, text: string): LeadKey {
  const fix = `delete ${file} to make a new key (running teammates must then be respawned)`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new SwarmError('corrupt', `lead key file ${file} is not JSON; ${fix}`, { cause });
  }
  const parsed = LeadKeyFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new SwarmError('corrupt', `lead key file ${file} has an unexpected shape; ${fix}`, { cause: parsed.error });
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: parsed.data.privateKeyPem, format: 'pem' });
  } catch (cause) {
    throw new SwarmError('corrupt', `lead key file ${file} holds no readable private key; ${fix}`, { cause });
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new SwarmError('corrupt', `lead key file ${file} holds a ${privateKey.asymmetricKeyType} key, expected Ed25519; ${fix}`);
  }
  const publicKey = createPublicKey(privateKey);
  const { createdAt } = parsed.data;
  return { privateKey, publicKey, createdAt, verifyKey: formatVerifyKey(publicKey, createdAt) };
}

/** The team's lead key; SwarmError('not_found') if there is none, 'corrupt' if unreadable. */
export async function loadLeadKey(team: Team): Promise<LeadKey> {
  const file = leadKeyPath(team);
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') {
      throw new SwarmError('not_found', `no lead key for team ${team.name} (expected ${file})`, { cause });
    }
    throw new SwarmError('io', `cannot read lead key ${file}: ${String(cause)}`, { cause });
  }
  return fromFile(file, text);
}

/** Load the team's lead key, creating it if missing; concurrent callers all get the same key. */
export async function ensureLeadKey(team: Team, now: number = Date.now()): Promise<LeadKey> {
  const file = leadKeyPath(team);
  try {
    return await loadLeadKey(team);
  } catch (e) {
    if (!(e instanceof SwarmError && e.kind === 'not_found')) throw e;
  }
  const dir = keysDir(team.root);
  try {
    await ensureDir(dir);
    await fs.chmod(dir, DIR_MODE);
  } catch (cause) {
    throw new SwarmError('io', `cannot create ${dir}: ${String(cause)}`, { cause });
  }
  const pair = generateLeadKeyPair(now);
  const body: LeadKeyFile = {
    version: 1,
    createdAt: pair.createdAt,
    privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  let won: boolean;
  try {
    won = await createFileExclusive(file, formatJson(body));
  } catch (cause) {
    throw new SwarmError('io', `cannot create lead key ${file}: ${String(cause)}`, { cause });
  }
  if (!won) return loadLeadKey(team);
  return { privateKey: pair.privateKey, publicKey: pair.publicKey, createdAt: pair.createdAt, verifyKey: pair.verifyKey };
}

/** Delete a team for good: its directory, its task list (deleteTeam) and then its key (`swarm team delete`, `launch --fresh`). */
export async function removeTeam(team: Team): Promise<void> {
  await deleteTeam(team);
  await deleteLeadKey(team);
}

/** Remove the team's key file; true if there was one. */
export async function deleteLeadKey(team: Team): Promise<boolean> {
  const file = leadKeyPath(team);
  try {
    await fs.unlink(file);
    return true;
  } catch (cause) {
    if (errnoCode(cause) === 'ENOENT') return false;
    throw new SwarmError('io', `cannot delete lead key ${file}: ${String(cause)}`, { cause });
  }
}
