// Private dirs for a pane's files: made fresh (newPaneDir), and removed when a pane never did. A
// pane's environment file (env-file.ts) and its stderr fifo (stderr-log.ts) each live in a mkdtemp
// dir of TMPDIR that the pane's own shell removes the moment it starts. A pane killed before that
// (or a spawner killed between making the dir and making the pane) leaves the dir behind, and the
// env file holds the teammate's API key. Whoever makes the next such dir on this machine first
// removes this user's ones of the same kind that are older than STALE_PANE_DIR_MS: a pane reads its
// files within milliseconds of being made, never minutes later.
import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const STALE_PANE_DIR_MS = 10 * 60_000;

/**
 * Removes the dirs named `<prefix>XXXXXX` (mkdtemp's six characters) in `dir` that are real
 * directories of this user last changed more than `maxAgeMs` ago; returns their paths. Best effort:
 * a dir that cannot be read or removed is left.
 */
export async function removeStalePaneDirs(dir: string, prefix: string, now = Date.now(), maxAgeMs = STALE_PANE_DIR_MS): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((n) => n.startsWith(prefix) && /^[A-Za-z0-9]{6}$/.test(n.slice(prefix.length)))) {
    const full = path.join(dir, name);
    try {
      const st = await lstat(full);
      if (!st.isDirectory() || st.uid !== process.getuid?.() || now - st.mtimeMs <= maxAgeMs) continue;
      await rm(full, { recursive: true, force: true });
      removed.push(full);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

/** A new private dir `<prefix>XXXXXX` in TMPDIR for a pane's files, once this user's stale ones of that kind are gone. */
export async function newPaneDir(prefix: string): Promise<string> {
  await removeStalePaneDirs(os.tmpdir(), prefix);
  return mkdtemp(path.join(os.tmpdir(), prefix));
}
