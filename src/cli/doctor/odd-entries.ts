// `swarm doctor`'s look at entries of a team's directory that are not what their names must be:
// - a lock path (`*.lock`, anywhere under teams/<team>/) that is not a directory: no process can
//   ever take that lock, so every change to its file fails (a symlink is linked_lock, team-checks);
// - in inboxes/, where only one kind of entry works (docs/protocol.md#root-layout, docs/protocol.md#inbox-spool):
//     <name>.json, <name>.archive.jsonl    regular files (swarm reads only those: a symlink, FIFO or
//                                          directory there fails every read and send of that inbox)
//     <name>.json.lock.queue, <name>.json.spool   directories
//     <name>.json.spool/*.json             regular files (anything else is left there undelivered)
// `--fix` removes only a stray lock that is an empty regular file, and only if it still is one when
// --fix gets there: a lock is never a file, so nothing can be using it, and an empty one holds
// nothing to lose. Everything else is left to the person, with the command to run.
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { describeEntry } from '../../storage/regular-file.js';
import type { Team } from '../../team/team.js';
import type { DoctorContext, Finding } from './machine-checks.js';

type Expected = 'a regular file' | 'a directory';

/** What an entry of inboxes/ with this name must be (its lock aside), or undefined for a name swarm does not use. */
export function expectedInboxEntry(name: string): Expected | undefined {
  if (/\.json\.lock\.queue$|\.json\.spool$/.test(name)) return 'a directory';
  if (/\.json$|\.archive\.jsonl$/.test(name)) return 'a regular file';
  return undefined;
}

function isExpected(st: Stats, expected: Expected): boolean {
  return expected === 'a directory' ? st.isDirectory() : st.isFile();
}

const look = (p: string): string => `look at it (ls -l '${p}'), then move it away or remove it`;

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

/** A `*.lock` path found to be neither a directory nor a symlink (scanTeamDir). */
export function oddLockFinding(ctx: DoctorContext, team: string, p: string, st: Stats): Finding {
  const rel = path.relative(ctx.root, p);
  const file = path.basename(p).slice(0, -'.lock'.length);
  const what = path.basename(path.dirname(p)) === 'inboxes' ? 'every send to that inbox fails' : 'every change to it fails';
  const stray = st.isFile() && st.size === 0;
  return {
    check: 'odd_lock',
    severity: 'problem',
    team,
    path: p,
    problem: `${rel} is ${describeEntry(st)}, not a lock directory: nobody can lock ${file}, so ${what}`,
    fix: stray ? `swarm doctor --fix removes it (or: rm '${p}')` : look(p),
    ...(stray ? { apply: removeStrayLock(ctx, p) } : {}),
  };
}

/** What goes wrong while an odd entry of inboxes/ is there, for the finding's one line. */
function consequence(name: string): string {
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

/** Entries of the team's inboxes/ (and of its spools) that are not what their names must be. */
export async function inboxEntryFindings(ctx: DoctorContext, team: Team): Promise<Finding[]> {
  const out: Finding[] = [];
  if ((await fs.lstat(team.paths.inboxes).catch(() => undefined))?.isSymbolicLink()) return out; // linked_dir (team-checks.ts)
  const finding = (p: string, severity: Finding['severity'], problem: string, fix: string): Finding => ({ check: 'odd_inbox_entry', severity, team: team.name, path: p, problem, fix });
  for (const { name, path: p, st } of await entries(team.paths.inboxes)) {
    const expected = expectedInboxEntry(name);
    if (expected === undefined) continue;
    if (!isExpected(st, expected)) out.push(finding(p, 'problem', `${path.relative(ctx.root, p)} is ${describeEntry(st)}, not ${expected}: ${consequence(name)}`, look(p)));
    if (!name.endsWith('.spool') || !st.isDirectory()) continue;
    for (const e of await entries(p)) {
      if (!e.name.endsWith('.json') || e.name.startsWith('.') || e.st.isFile()) continue;
      out.push(finding(e.path, 'warning', `${path.relative(ctx.root, e.path)} is ${describeEntry(e.st)}, not a queued message: it is left there, never delivered`, `look at it (ls -l '${e.path}'), then remove it`));
    }
  }
  return out;
}
