// Reading a file that must be a regular file. A team directory can hold anything a person or another
// tool put there: a symlink named like an inbox or a task would be read (and then replaced) through
// the link, and a FIFO with no writer would hang the open or the read for good — under the inbox
// lock, and on the main thread, so even a SIGTERM handler never ran. So the file is opened without
// following a final symlink and without blocking (O_NOFOLLOW | O_NONBLOCK), then checked with fstat
// on the same descriptor, so what is read is what was checked. Anything else (a symlink, a FIFO, a
// directory, a socket, a device) is named, never read: a link's target could be any file, and none
// of its bytes may end up in a warning or a model's context. A missing file is `missing`.
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readFileSync, type Stats } from 'node:fs';
import { errnoCode, SwarmError } from '../protocol/errors.js';

/** What a path holds when it is not a regular file. */
export type OddKind = 'symlink' | 'fifo' | 'directory' | 'socket' | 'device';

export type RegularRead = { text: string } | { missing: true } | { odd: OddKind };

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The kind of a non-regular entry from its (l)stat; undefined for a regular file. */
export function oddKindOf(st: Pick<Stats, 'isFile' | 'isSymbolicLink' | 'isFIFO' | 'isDirectory' | 'isSocket'>): OddKind | undefined {
  if (st.isFile()) return undefined;
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'fifo';
  if (st.isDirectory()) return 'directory';
  if (st.isSocket()) return 'socket';
  return 'device';
}

const ODD_WORDS: Record<OddKind, string> = {
  symlink: 'a symbolic link',
  fifo: 'a FIFO (named pipe)',
  directory: 'a directory',
  socket: 'a socket',
  device: 'a device file',
};

/** "a FIFO (named pipe)", "a symbolic link", ... */
export function describeOdd(kind: OddKind): string {
  return ODD_WORDS[kind];
}

/** Any entry in words, for messages: the odd kinds as above, else `an empty file` or `a file`. */
export function describeEntry(st: Stats): string {
  const odd = oddKindOf(st);
  if (odd !== undefined) return describeOdd(odd);
  return st.size === 0 ? 'an empty file' : 'a file';
}

/** What is at `file`, its final symlink not followed: `file`, `missing`, or the odd kind (for a scan that reads nothing). */
export function entryKind(file: string): 'file' | 'missing' | OddKind {
  try {
    return oddKindOf(lstatSync(file)) ?? 'file';
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return 'missing';
    throw new SwarmError('io', `cannot stat ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** The one-line error for a file that must be regular and is not: what it is, and how to get rid of it. */
export function oddFileError(file: string, kind: OddKind): SwarmError {
  const rm = kind === 'directory' ? `rmdir '${file}'` : `rm '${file}'`;
  return new SwarmError('io', `${file} is ${describeOdd(kind)}, not a regular file; swarm does not read it: remove it (${rm})`);
}

/** An open that failed: missing, a final symlink (ELOOP), a socket (ENXIO), or an io error naming the file. */
function failedOpen(file: string, e: unknown): RegularRead {
  const code = errnoCode(e);
  if (code === 'ENOENT') return { missing: true };
  if (code === 'ELOOP') return { odd: 'symlink' }; // O_NOFOLLOW on a final symlink
  if (code === 'ENXIO') return { odd: 'socket' }; // a socket cannot be opened
  throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
}

function cannotRead(file: string, e: unknown): SwarmError {
  return new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
}

/**
 * The text of `file` when it is a regular file; `missing` when there is none; `odd` (nothing read)
 * for anything else. Other failures are io errors naming the file.
 */
export function readRegularFileSync(file: string): RegularRead {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch (e) {
    return failedOpen(file, e);
  }
  try {
    const odd = oddKindOf(fstatSync(fd));
    if (odd !== undefined) return { odd };
    return { text: readFileSync(fd, 'utf8') };
  } catch (e) {
    throw cannotRead(file, e);
  } finally {
    closeSync(fd);
  }
}

/** readRegularFileSync without blocking the event loop (a large inbox). */
export async function readRegularFile(file: string): Promise<RegularRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, READ_FLAGS);
  } catch (e) {
    return failedOpen(file, e);
  }
  try {
    const odd = oddKindOf(await handle.stat());
    if (odd !== undefined) return { odd };
    return { text: await handle.readFile('utf8') };
  } catch (e) {
    throw cannotRead(file, e);
  } finally {
    await handle.close();
  }
}
