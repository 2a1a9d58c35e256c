// A file damaged a while ago: written with the given bytes and dated a minute back, so that a
// reader of a file kept in place (a team's config.json, storage/json-file.ts) sees no write in
// progress and reports it at once instead of reading it again for two seconds.
import { promises as fs } from 'node:fs';

export async function writeDamaged(file: string, bytes: string, opts: { mode?: number } = {}): Promise<void> {
  await fs.writeFile(file, bytes, opts);
  const aMinuteAgo = new Date(Date.now() - 60_000);
  await fs.utimes(file, aMinuteAgo, aMinuteAgo);
}
