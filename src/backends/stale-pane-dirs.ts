// Private dirs a pane never removed. A pane's environment file (env-file.ts) and its stderr fifo
// (stderr-log.ts) each live in a mkdtemp dir of TMPDIR that the pane's own shell removes the moment
// it starts. A pane killed before that (or a spawner killed between making the dir and making the
// pane) leaves the dir behind, and the env file holds the teammate's API key. Whoever makes the next
// such dir on this machine first removes this user's ones of the same kind that are older than
// STALE_PANE_DIR_MS: a pane reads its files within milliseconds of being made, never minutes later.
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

export const STALE_PANE_DIR_MS = 10 * 60_000;

/**
 * Removes the dirs named `<prefix>XXXXXX` (mkdtemp's six characters) in `dir` that are real
 * directories of this user last changed more than `maxAgeMs` ago; returns their paths. Best effort:
 * a dir that cannot be read or removed is left.
 */
export async function removeStalePaneDirs(dir: string, prefix: string, now = Date.now(), maxAgeMs = STALE_PANE_DIR_MS): Promise<string[]> {
  const pattern = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[A-Za-z0-9]{6}$`);
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names.filter((n) => pattern.test(n))) {
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
