// Cheap digests of what the console shows, so that a write that changes nothing shown does not
// trigger a full status refresh (tmux probe, every inbox parsed), which kept an idle console busy:
//   StateDigest   the teammates' `name:state:pid` from status/*.json: heartbeats rewrite those files
//                 every few seconds; a file is read again only when its size or mtime moved, and
//                 once listed, only the files the watcher's events named are looked at (a hundred
//                 idle teammates cost the stats of the few that wrote, not a hundred parses; the
//                 stat and read of a file are synchronous: a status file is a few hundred bytes on
//                 the leader's own disk, and each of the promise calls cost more than its I/O: a
//                 hundred idle teammates' heartbeats took 0.5-0.7 % of a core that way, 0.45 % so);
// (config.json's is team/team-store.ts rosterDigest: the lease's renewal is no news.)
import { promises as fs, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { StatusFileSchema } from '../../protocol/status.js';
import { errnoCode } from '../../protocol/errors.js';
import { parseText } from '../../storage/json-file.js';

export class StateDigest {
  private readonly seen = new Map<string, { stamp: string; part: string }>();
  private listed = false;

  constructor(private readonly statusDir: string) {}

  /**
   * The digest, looking again at `names` only (the files a watcher's events named) once the whole
   * directory has been listed: a hundred heartbeating teammates then cost the stats of the few that
   * wrote, not a readdir and a hundred stats. 'all' (a hint that named nothing) lists it again.
   */
  async read(names: ReadonlySet<string> | 'all' = 'all'): Promise<string> {
    if (names === 'all' || !this.listed) {
      let listing: Set<string>;
      try {
        listing = new Set((await fs.readdir(this.statusDir)).filter((n) => n.endsWith('.json')));
      } catch {
        this.seen.clear();
        return '';
      }
      for (const name of this.seen.keys()) if (!listing.has(name)) this.seen.delete(name);
      for (const name of listing) this.look(name);
      this.listed = true;
    } else {
      for (const name of names) if (name.endsWith('.json')) this.look(name);
    }
    return [...this.seen.keys()]
      .sort()
      .map((name) => `${name}:${this.seen.get(name)!.part}`)
      .join('|');
  }

  /** Record `name`'s part (state and pid), reading it only when its size or mtime moved; a file that is gone is dropped. */
  private look(name: string): void {
    const file = path.join(this.statusDir, name);
    let stamp: string;
    try {
      const st = statSync(file);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') this.seen.delete(name);
      else this.seen.set(name, { stamp: '', part: 'gone' });
      return;
    }
    if (this.seen.get(name)?.stamp === stamp) return;
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined; // gone or unreadable since the stat
    }
    const parsed = text === undefined ? undefined : parseText(text, StatusFileSchema);
    this.seen.set(name, { stamp, part: parsed?.ok ? `${parsed.value.state}:${parsed.value.pid}` : text === undefined ? 'gone' : 'unreadable' });
  }
}
