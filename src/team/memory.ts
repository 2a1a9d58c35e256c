// Team memory (docs/memory.md): Claude Code's directory `<root>/projects/<project key>/memory/team/`
// (paths.ts memoryDir), kept across teams. `MEMORY.md` is the index, one line per topic
// (`- [Title](topic.md) — one-line hook`); each topic is a plain `<name>.md` beside it. Members save a
// memory with their ordinary Write/Edit tools, in two steps: the topic file, then its line in the index.
// This module reads it (the index's first 200 lines and 25,000 characters, Claude Code's limits, for
// the system prompts; the topics for `swarm memory`) and holds the one check every path into it
// passes: a plain `<name>.md` (no subdirectory, no `..`, not absolute) directly in the directory by
// real path, not a symbolic link, not a file with other hard links (another of its names could be
// anything). Nothing here writes.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../protocol/errors.js';

export const MEMORY_INDEX = 'MEMORY.md';
/** What of the index goes into a system prompt (Claude Code's limits for its MEMORY.md). */
export const INDEX_MAX_LINES = 200;
export const INDEX_MAX_CHARS = 25_000;
/** A memory file is notes, not data: one bigger than this is refused, never read whole. */
export const MEMORY_FILE_MAX_BYTES = 1 << 20;

const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.md$/;

/** Why `name` is not a plain `<name>.md` file name, or undefined when it is one. */
export function memoryNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (path.isAbsolute(name)) return 'is an absolute path';
  if (name.split(/[\\/]/).includes('..')) return 'climbs out with ".."';
  if (/[\\/]/.test(name)) return 'is in a subdirectory';
  if (!name.endsWith('.md')) return 'is not a .md file';
  if (!PLAIN_NAME.test(name)) return 'is not a plain name (letters, digits, ".", "_" and "-", at most 100, not starting with ".")';
  return undefined;
}

function refused(shown: string, problem: string, dir: string): SwarmError {
  return new SwarmError(
    'invalid_input',
    `${shown} ${problem}: a team memory is a plain <name>.md file directly in ${dir} (write the topic file, then its line in ${MEMORY_INDEX})`,
  );
}

/** The real path of `dir`, or undefined while it does not exist. */
async function realDir(dir: string): Promise<string | undefined> {
  try {
    return await fs.realpath(dir);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    throw new SwarmError('io', `cannot resolve ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * The memory file `name` names in `dir` (its real form when the directory exists), checked: a plain
 * `<name>.md` directly in the directory, and — when it exists — a regular file, not a symbolic link,
 * with no other hard link. Throws a one-line SwarmError('invalid_input') otherwise; `shown` is how
 * the error names the path (default `dir/name`).
 */
export async function checkMemoryPath(dir: string, name: string, shown = path.join(dir, name)): Promise<string> {
  const problem = memoryNameProblem(name);
  if (problem !== undefined) throw refused(shown, problem, dir);
  const real = await realDir(dir);
  if (real === undefined) return path.join(dir, name);
  const file = path.join(real, name);
  let st;
  try {
    st = await fs.lstat(file);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return file;
    throw new SwarmError('io', `cannot look at ${shown}: ${(e as Error).message}`, { cause: e });
  }
  if (st.isSymbolicLink()) throw refused(shown, 'is a symbolic link', dir);
  if (!st.isFile()) throw refused(shown, 'is not a regular file', dir);
  if (st.nlink > 1) throw refused(shown, `has ${st.nlink} hard links`, dir);
  return file;
}

/**
 * The text of memory file `name` in `dir`, or undefined when it does not exist. The name is checked
 * as above; the rest on what is opened (no final symlink followed, so a link swapped in after a
 * look cannot be read through): a regular file with no other hard link, at most MEMORY_FILE_MAX_BYTES.
 */
export async function readMemoryFile(dir: string, name: string): Promise<string | undefined> {
  const shown = path.join(dir, name);
  const problem = memoryNameProblem(name);
  if (problem !== undefined) throw refused(shown, problem, dir);
  const real = await realDir(dir);
  if (real === undefined) return undefined;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path.join(real, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return undefined;
    if (errnoCode(e) === 'ELOOP') throw refused(shown, 'is a symbolic link', dir);
    throw new SwarmError('io', `cannot read ${shown}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw refused(shown, 'is not a regular file', dir);
    if (st.nlink > 1) throw refused(shown, `has ${st.nlink} hard links`, dir);
    if (st.size > MEMORY_FILE_MAX_BYTES) throw new SwarmError('invalid_input', `${shown} is ${st.size} bytes, more than a memory file may be (${MEMORY_FILE_MAX_BYTES}); shorten it`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** The index as a system prompt gets it. */
export type MemoryIndex =
  | { state: 'missing' }
  | { state: 'read'; text: string; lines: number; chars: number; cut: boolean }
  | { state: 'unusable'; problem: string };

export interface TeamMemory {
  dir: string;
  index: MemoryIndex;
}

/** `text` cut as Claude Code cuts its MEMORY.md: trimmed, then 200 lines, then 25,000 characters at a line end. */
export function cutIndex(text: string): Extract<MemoryIndex, { state: 'read' }> {
  const whole = text.trim();
  const all = whole.split('\n');
  let shown = all.length > INDEX_MAX_LINES ? all.slice(0, INDEX_MAX_LINES).join('\n') : whole;
  if (shown.length > INDEX_MAX_CHARS) {
    const end = shown.lastIndexOf('\n', INDEX_MAX_CHARS);
    shown = shown.slice(0, end > 0 ? end : INDEX_MAX_CHARS);
  }
  return { state: 'read', text: shown, lines: all.length, chars: whole.length, cut: shown.length < whole.length };
}

async function indexAndText(dir: string): Promise<{ index: MemoryIndex; text?: string }> {
  try {
    const text = await readMemoryFile(dir, MEMORY_INDEX);
    return text === undefined || text.trim() === '' ? { index: { state: 'missing' } } : { index: cutIndex(text), text };
  } catch (e) {
    return { index: { state: 'unusable', problem: e instanceof Error ? e.message : String(e) } };
  }
}

/** The team memory in `dir` as a member gets it when it starts: the index cut as above, or why there is none. */
export async function readTeamMemory(dir: string): Promise<TeamMemory> {
  return { dir, index: (await indexAndText(dir)).index };
}

export interface MemoryTopic {
  /** The file name, `<name>.md`. */
  name: string;
  bytes: number;
  /** Its line in MEMORY.md (the first that names the file), if any. */
  indexLine?: string;
}

export interface MemoryListing {
  dir: string;
  /** False while nothing was ever saved for the project. */
  exists: boolean;
  index: MemoryIndex;
  topics: MemoryTopic[];
  /** Entries that are no memory file (a link, a subdirectory, another name), left alone. */
  skipped: { name: string; problem: string }[];
}

/** Every topic file in `dir` with its size and index line, and what else is there. */
export async function listMemory(dir: string): Promise<MemoryListing> {
  const real = await realDir(dir);
  if (real === undefined) return { dir, exists: false, index: { state: 'missing' }, topics: [], skipped: [] };
  const { index, text } = await indexAndText(dir);
  const indexLines = text?.split('\n') ?? [];
  const topics: MemoryTopic[] = [];
  const skipped: MemoryListing['skipped'] = [];
  for (const name of (await fs.readdir(real)).sort()) {
    if (name === MEMORY_INDEX) continue;
    try {
      const file = await checkMemoryPath(dir, name);
      const line = indexLines.find((l) => l.includes(`(${name})`)) ?? indexLines.find((l) => l.includes(name));
      topics.push({ name, bytes: (await fs.lstat(file)).size, ...(line !== undefined ? { indexLine: line.trim() } : {}) });
    } catch (e) {
      skipped.push({ name, problem: e instanceof Error ? e.message : String(e) });
    }
  }
  return { dir, exists: true, index, topics, skipped };
}
