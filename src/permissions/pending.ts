// The request files both sides share (docs/protocol.md#permission-requests):
//   teams/<team>/permissions/pending/<id>.json        PendingRequest, written once by the worker (or
//                                                     materialised by the leader from an inbox frame)
//   teams/<team>/permissions/pending/<id>.json.lock/  the request's lock (proper-lockfile, transient)
//   teams/<team>/permissions/resolved/<id>.json       ResolvedRequest, signed by the leader
//   teams/<team>/permissions/resolved/<id>.json.rejected-<ms>  a resolution that failed verification
//
// Locking rule: whoever ENDS a request (decides it, clears it, or cancels it) holds the lock of its
// pending file while it checks the file is still there, writes what it writes (resolved file, audit
// line, response frame) and removes the pending file. Creating a pending file needs no lock when the
// id is fresh (the worker's own random id); materialising one from an inbox frame uses exclusive
// create under the same lock. So two parties can never both end the same request.
import { promises as fs } from 'node:fs';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { isSafeRequestId } from '../protocol/ids.js';
import { PendingRequestSchema, type AuditEvent, type PendingRequest } from '../protocol/permission.js';
import { createFileExclusive, ensureDir, fileExists, formatJson, writeFileAtomic } from '../storage/atomic.js';
import { readJsonFile } from '../storage/json-file.js';
import { withFileLock } from '../storage/lock.js';
import type { TeamPaths } from '../team/paths.js';
import { appendAudit } from './audit.js';


/** The pending record of `id` (parsed), or undefined. A corrupt file is kept aside (SwarmError 'corrupt'). */
export async function readPending(paths: TeamPaths, id: string): Promise<PendingRequest | undefined> {
  return readJsonFile(paths.pendingFile(id), { schema: PendingRequestSchema });
}

/** Ids of every `pending/<id>.json` (temp files, locks and kept-aside files are not requests). */
export async function pendingIds(paths: TeamPaths): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(paths.pending);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw new SwarmError('io', `cannot list ${paths.pending}: ${(e as Error).message}`, { cause: e });
  }
  return names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .filter(isSafeRequestId)
    .sort();
}

/** Write a new pending record atomically (0600). */
export async function writePending(paths: TeamPaths, record: PendingRequest): Promise<void> {
  await ensureDir(paths.pending);
  await writeFileAtomic(paths.pendingFile(record.id), formatJson(PendingRequestSchema.parse(record)));
}

/**
 * Create `pending/<id>.json` only if it does not exist (temp file + link, which fails with EEXIST).
 * Returns false when the file was already there.
 */
export async function createPendingExclusive(paths: TeamPaths, record: PendingRequest): Promise<boolean> {
  await ensureDir(paths.pending);
  return createFileExclusive(paths.pendingFile(record.id), formatJson(PendingRequestSchema.parse(record)));
}

/**
 * End a request without a decision (worker cancelled/timed out, leader cleared an orphan): under the
 * pending file's lock, if it still exists, append `event` to the audit log and remove the file.
 * Returns false when the request was no longer pending (someone else ended it first).
 */
export async function endPending(paths: TeamPaths, id: string, event: AuditEvent): Promise<boolean> {
  const file = paths.pendingFile(id);
  return withFileLock(file, async () => {
    if (!(await fileExists(file))) return false;
    await appendAudit(paths, event);
    await fs.rm(file, { force: true });
    return true;
  });
}
