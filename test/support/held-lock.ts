// A lock held by this test until it lets go, and the length of a file's waiting line: how the lock
// tests stage a busy lock and know when a waiter has queued behind it.
import { readdir } from 'node:fs/promises';
import { expect } from 'vitest';
import { queueDirFor, withFileLock } from '../../src/storage/lock.js';

/** Take `file`'s lock and hold it until `release()`; `held` settles once it is let go. */
export async function holdLock(file: string): Promise<{ release: () => void; held: Promise<void> }> {
  let release: (() => void) | undefined;
  const held = withFileLock(file, () => new Promise<void>((r) => (release = r)));
  await expect.poll(() => release !== undefined).toBe(true);
  return { release: release!, held };
}

/** How many tickets wait in `file`'s line (0 when there is no line). */
export function ticketsInLine(file: string): Promise<number> {
  return readdir(queueDirFor(file)).then((t) => t.length, () => 0);
}
