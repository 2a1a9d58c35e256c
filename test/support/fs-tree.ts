// Every path under a directory (relative, sorted), to show that an operation created nothing.
import { promises as fs } from 'node:fs';
import path from 'node:path';

export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${p}/` : p);
      if (e.isDirectory()) await walk(p);
    }
  }
  await walk('');
  return out.sort();
}

/** Permission bits of a path, e.g. 0o700. */
export async function modeOf(p: string): Promise<number> {
  return (await fs.stat(p)).mode & 0o777;
}
