// Reading a shared file only when it is a regular file. A team directory can hold anything a person
// or another tool put there: a symlink named like an inbox would be read (and then replaced) through
// the link, and a FIFO would block the reader, under the inbox lock, until something writes to it.
// So these reads open with O_NOFOLLOW (a symlink fails with ELOOP) and O_NONBLOCK (opening a FIFO
// returns at once), check with fstat that what was opened is a regular file, and otherwise throw a
// one-line SwarmError('io') naming the path and what it is. A missing file is still ENOENT, as
// with readFile.
import { closeSync, constants as fsConstants, fstatSync, openSync, promises as fs, readFileSync, type Stats } from 'node:fs';
import { errnoCode, SwarmError } from '../protocol/errors.js';

const READ_REGULAR = fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK;

/** What a directory entry is, for messages: `a symlink`, `a FIFO`, `a directory`, `a regular file`, ... */
export function entryKind(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symlink';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return st.size === 0 ? 'an empty file' : 'a file';
}

function notRegular(file: string, kind: string, cause?: unknown): SwarmError {
  return new SwarmError('io', `${file} is ${kind}, not a regular file; swarm reads only regular files there: move it away or remove it (swarm doctor lists it)`, {
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The open error of a read that refuses links: ELOOP (a symlink) as a SwarmError naming it; others as they are. */
function refuseOpen(file: string, e: unknown): never {
  if (errnoCode(e) === 'ELOOP') throw notRegular(file, 'a symlink', e);
  throw e;
}

/** readFileSync(file, 'utf8') of a regular file only (see the header); ENOENT when missing. */
export function readRegularFileSync(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, READ_REGULAR);
  } catch (e) {
    refuseOpen(file, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw notRegular(file, entryKind(st));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** fs.readFile(file, 'utf8') of a regular file only (see the header); ENOENT when missing. */
export async function readRegularFile(file: string): Promise<string> {
  const handle = await fs.open(file, READ_REGULAR).catch((e: unknown) => refuseOpen(file, e));
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw notRegular(file, entryKind(st));
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
