// Opening the files the tools write or read, and checking what was opened. paths.ts checks the
// path first, but a hard link to a team file has a path outside teams/, and a directory on the way
// could be swapped for a link between that check and the open. So a write opens the real path
// without following a final symlink and refuses, before changing a byte, a file that is one of the
// team's own (same device and inode as a file under teams/ or swarm/) or that has more than one
// link (another of its names could be anything); then it truncates and writes through the same
// descriptor. A read refuses a file that is one of the team's own by another name. A write into the
// team's scratchpad keeps to its size limits (scratchpad.ts).
import { constants, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../../protocol/errors.js';
import type { PathGuard } from './paths.js';

type Handle = fs.FileHandle;

function teamFileByAnotherName(shown: string): SwarmError {
  return new SwarmError(
    'invalid_input',
    `${shown} is one of the team's own files under another name (a hard link into teams/ or swarm/); teammates may not touch them. Use SendMessage to talk to the team.`,
  );
}

async function refuseTeamFile(guard: PathGuard, st: Stats, shown: string): Promise<void> {
  if (await guard.isProtectedFile(st)) throw teamFileByAnotherName(shown);
}

async function openForWrite(guard: PathGuard, real: string, shown: string, flags: number): Promise<{ handle: Handle; size: number }> {
  let handle: Handle;
  try {
    // O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of hanging the tool; no effect on files.
    handle = await fs.open(real, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (e) {
    if (errnoCode(e) === 'ELOOP') throw new SwarmError('invalid_input', `${shown} became a symbolic link after it was checked; not written`, { cause: e });
    throw new SwarmError('io', `cannot open ${shown}: ${(e as Error).message}`, { cause: e });
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new SwarmError('invalid_input', `${shown} is not a regular file; not written`);
    await refuseTeamFile(guard, st, shown);
    if (st.nlink > 1) {
      throw new SwarmError(
        'invalid_input',
        `${shown} has ${st.nlink} hard links, and Write/Edit never change a file that has other names (one could be a protected file); break the link first (cp it to a new file, then mv that over it)`,
      );
    }
    return { handle, size: st.size };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

async function replaceContent(handle: Handle, text: string): Promise<void> {
  const buf = Buffer.from(text, 'utf8');
  await handle.truncate(0);
  for (let at = 0; at < buf.length; ) at += (await handle.write(buf, at, buf.length - at, at)).bytesWritten;
}

/**
 * Create or overwrite `real` (its parent directories created) with `text`, checked as above. In the
 * scratchpad its size limits are checked first, so a refused write creates nothing.
 */
export async function writeChecked(guard: PathGuard, real: string, shown: string, text: string): Promise<void> {
  const before = await fs.lstat(real).then((st) => (st.isFile() ? st.size : 0), () => 0);
  await guard.scratchpad?.checkRoom(real, shown, before, Buffer.byteLength(text, 'utf8'));
  await fs.mkdir(path.dirname(real), { recursive: true });
  const { handle } = await openForWrite(guard, real, shown, constants.O_WRONLY | constants.O_CREAT);
  try {
    await replaceContent(handle, text);
  } finally {
    await handle.close();
  }
}

/** Rewrite the existing file `real` as `edit` of its current text, checked as above (the scratchpad's limits too). */
export async function updateChecked<T extends { text: string }>(guard: PathGuard, real: string, shown: string, edit: (now: string) => T): Promise<T> {
  const { handle, size } = await openForWrite(guard, real, shown, constants.O_RDWR);
  try {
    const result = edit(await handle.readFile('utf8'));
    await guard.scratchpad?.checkRoom(real, shown, size, Buffer.byteLength(result.text, 'utf8'));
    await replaceContent(handle, result.text);
    return result;
  } finally {
    await handle.close();
  }
}

/** The bytes of `abs`, refused when it is a team file by another name (a hard link). */
export async function readChecked(guard: PathGuard, abs: string): Promise<Buffer> {
  const handle = await fs.open(abs, 'r');
  try {
    const st = await handle.stat();
    if (st.nlink > 1) await refuseTeamFile(guard, st, abs);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** For walkers that already hold a stat: is this a team file under another name? */
export async function isTeamFileByAnotherName(guard: PathGuard, st: Stats): Promise<boolean> {
  return st.nlink > 1 && (await guard.isProtectedFile(st));
}
