// `swarm doctor`'s look at what sits in each team's inboxes/ under the names swarm uses there,
// where only one kind of entry works (SPEC §3, §12):
//   <name>.json, <name>.archive.jsonl      regular files (swarm reads only those: a symlink, FIFO or
//                                          directory there fails every read and send of that inbox)
//   <name>.json.lock, <name>.json.lock.queue, <name>.json.spool   directories (a lock path that is
//                                          a file can never be locked: every send to it fails)
//   <name>.json.spool/*.json               regular files (anything else is left there undelivered)
// A `.lock` symlink is reported by team-checks.ts (linked_lock), not here. `--fix` removes only a
// stray `.lock` that is an empty regular file, and only if it still is one when --fix gets there: a
// lock is never a file, so nothing can be using it, and an empty one holds nothing to lose.
// Everything else is left to the person, with the command to run.
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { describeEntry } from '../../storage/regular-file.js';
import type { Team } from '../../team/team.js';
import type { DoctorContext, Finding } from './machine-checks.js';

type Expected = 'a regular file' | 'a directory';

/** What an entry of inboxes/ with this name must be, or undefined for a name swarm does not use. */
export function expectedInboxEntry(name: string): Expected | undefined {
  if (/\.json\.lock$|\.json\.lock\.queue$|\.json\.spool$/.test(name)) return 'a directory';
  if (/\.json$|\.archive\.jsonl$/.test(name)) return 'a regular file';
  return undefined;
}

function isExpected(st: Stats, expected: Expected): boolean {
  return expected === 'a directory' ? st.isDirectory() : st.isFile();
}

/** What goes wrong while the entry is there, for the finding's one line. */
function consequence(name: string): string {
  if (name.endsWith('.lock')) return `nobody can lock ${name.slice(0, -'.lock'.length)}, so every send to that inbox fails`;
  if (name.endsWith('.lock.queue')) return `writers of ${name.slice(0, -'.lock.queue'.length)} cannot wait for its lock, so they fail`;
  if (name.endsWith('.spool')) return `sends to ${name.slice(0, -'.spool'.length)} cannot queue there, so they fail`;
  return 'every read and send of that inbox fails';
}

/** Entries of `dir` with their own lstat (a vanished one is skipped). */
async function entries(dir: string): Promise<{ name: string; path: string; st: Stats }[]> {
  const names = await fs.readdir(dir).catch((): string[] => []);
  const out: { name: string; path: string; st: Stats }[] = [];
  for (const name of names.sort()) {
    const p = path.join(dir, name);
    const st = await fs.lstat(p).catch(() => undefined);
    if (st !== undefined) out.push({ name, path: p, st });
  }
  return out;
}

/** Remove a stray lock file only if it is still an empty regular file. */
function removeStrayLock(ctx: DoctorContext, p: string): () => Promise<string> {
  const rel = path.relative(ctx.root, p);
  return async () => {
    const now = await fs.lstat(p).catch(() => undefined);
    if (now === undefined) return `${rel} was already gone`;
    if (!now.isFile() || now.size !== 0) throw new Error(`${rel} is no longer an empty file (now ${describeEntry(now)}); left alone`);
    await fs.unlink(p);
    return `removed the stray lock file ${rel}`;
  };
}

function oddEntry(ctx: DoctorContext, team: Team, name: string, p: string, st: Stats, expected: Expected): Finding | undefined {
  if (isExpected(st, expected)) return undefined;
  if (name.endsWith('.lock') && st.isSymbolicLink()) return undefined; // linked_lock (team-checks.ts)
  const rel = path.relative(ctx.root, p);
  const strayLock = name.endsWith('.lock') && st.isFile() && st.size === 0;
  return {
    check: 'odd_inbox_entry',
    severity: 'problem',
    team: team.name,
    path: p,
    problem: `${rel} is ${describeEntry(st)}, not ${expected}: ${consequence(name)}`,
    fix: strayLock ? `swarm doctor --fix removes it (or: rm '${p}')` : `look at it (ls -l '${p}'), then move it out of inboxes/ or remove it`,
    ...(strayLock ? { apply: removeStrayLock(ctx, p) } : {}),
  };
}

/** Entries of the team's inboxes/ (and of its spools) that are not what their names must be. */
export async function inboxEntryFindings(ctx: DoctorContext, team: Team): Promise<Finding[]> {
  const out: Finding[] = [];
  if ((await fs.lstat(team.paths.inboxes).catch(() => undefined))?.isSymbolicLink()) return out; // linked_dir (team-checks.ts)
  for (const { name, path: p, st } of await entries(team.paths.inboxes)) {
    const expected = expectedInboxEntry(name);
    if (expected === undefined) continue;
    const odd = oddEntry(ctx, team, name, p, st, expected);
    if (odd !== undefined) out.push(odd);
    if (!name.endsWith('.spool') || !st.isDirectory()) continue;
    for (const e of await entries(p)) {
      if (!e.name.endsWith('.json') || e.name.startsWith('.') || e.st.isFile()) continue;
      out.push({
        check: 'odd_inbox_entry',
        severity: 'warning',
        team: team.name,
        path: e.path,
        problem: `${path.relative(ctx.root, e.path)} is ${describeEntry(e.st)}, not a queued message: it is left there, never delivered`,
        fix: `look at it (ls -l '${e.path}'), then remove it`,
      });
    }
  }
  return out;
}
