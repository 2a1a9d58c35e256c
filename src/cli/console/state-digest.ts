// Cheap digests of what the console shows, so that a write that changes nothing shown does not
// trigger a full status refresh (tmux probe, every inbox parsed), which kept an idle console busy:
//   StateDigest   the teammates' `name:state:pid` from status/*.json: heartbeats rewrite those files
//                 every few seconds; a file is read again only when its size or mtime moved (a
//                 hundred idle teammates cost a readdir and a hundred stats per look, not a
//                 hundred parses);
// (config.json's is team/team-store.ts rosterDigest: the lease's renewal is no news.)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { StatusFileSchema } from '../../protocol/status.js';
import { parseText } from '../../storage/json-file.js';

export class StateDigest {
  private readonly seen = new Map<string, { stamp: string; part: string }>();

  constructor(private readonly statusDir: string) {}

  async read(): Promise<string> {
    let names: string[];
    try {
      names = (await fs.readdir(this.statusDir)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      return '';
    }
    const parts: string[] = [];
    for (const name of names) parts.push(`${name}:${await this.part(name)}`);
    for (const name of this.seen.keys()) if (!names.includes(name)) this.seen.delete(name);
    return parts.join('|');
  }

  private async part(name: string): Promise<string> {
    const file = path.join(this.statusDir, name);
    try {
      const st = await fs.stat(file);
      const stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
      const known = this.seen.get(name);
      if (known?.stamp === stamp) return known.part;
      const parsed = parseText(await fs.readFile(file, 'utf8'), StatusFileSchema);
      const part = parsed.ok ? `${parsed.value.state}:${parsed.value.pid}` : 'unreadable';
      this.seen.set(name, { stamp, part });
      return part;
    } catch {
      return 'gone';
    }
  }
}
