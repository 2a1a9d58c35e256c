// Reading a file that must be a regular file. It is opened without following a final symlink and
// without blocking (O_NOFOLLOW | O_NONBLOCK: a FIFO with no writer would otherwise hang the open or
// the read for good, and a process stuck in that read cannot even run its SIGTERM handler), then
// checked with fstat on the same descriptor, so what is read is what was checked. Anything else
// (a symlink, a FIFO, a directory, a socket, a device) is named, never read: a link's target could be
// any file, and none of its bytes may end up in a warning or a model's context.
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, type Stats } from 'node:fs';
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

/** What is at `file`, its final symlink not followed: `file`, `missing`, or the odd kind (for a scan that reads nothing). */
export function entryKind(file: string): 'file' | 'missing' | OddKind {
  try {
    return oddKindOf(lstatSync(file)) ?? 'file';
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return 'missing';
    throw new SwarmError('io', `cannot stat ${file}: ${(e as Error).message}`, { cause: e });
  }
}

/** "a FIFO (named pipe)", "a symbolic link", ... */
export function describeOdd(kind: OddKind): string {
  return ODD_WORDS[kind];
}

/** The one-line error for a file that must be regular and is not: what it is, and how to get rid of it. */
export function oddFileError(file: string, kind: OddKind): SwarmError {
  const rm = kind === 'directory' ? `rmdir '${file}'` : `rm '${file}'`;
  return new SwarmError('io', `${file} is ${describeOdd(kind)}, not a regular file; swarm does not read it: remove it (${rm})`);
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
    const code = errnoCode(e);
    if (code === 'ENOENT') return { missing: true };
    if (code === 'ELOOP') return { odd: 'symlink' }; // O_NOFOLLOW on a final symlink
    if (code === 'ENXIO') return { odd: 'socket' }; // a socket cannot be opened
    throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const odd = oddKindOf(fstatSync(fd));
    if (odd !== undefined) return { odd };
    return { text: readFileSync(fd, 'utf8') };
  } catch (e) {
    throw new SwarmError('io', `cannot read ${file}: ${(e as Error).message}`, { cause: e });
  } finally {
    closeSync(fd);
  }
}
