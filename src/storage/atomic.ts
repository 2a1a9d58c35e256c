// Atomic whole-file writes and private directories.
//
// writeFileAtomic: write `<file>.tmp-<pid>-<random>` in the same directory, fsync it, rename it over
// the target, then fsync the directory so the rename itself survives a crash. Readers therefore see
// either the old bytes or the new bytes, never a mix. createFileExclusive: the same, but linked into
// place, so it never replaces a file that is already there. Files are 0600, directories 0700 (docs/protocol.md#locks-and-atomic-writes).
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { closeSync, constants as fsConstants, fchmodSync, fstatSync, fsyncSync, lstatSync, openSync, promises as fs, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { errnoCode, SwarmError } from '../protocol/errors.js';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;
/** Permission bits a private file or directory may not have: any access for group or others. */
export const NOT_PRIVATE = 0o077;
/** The permission bits of a stat mode (rwx for user, group, others; no type, no setuid/sticky). */
export const PERMISSION_BITS = 0o777;

/** The file-system calls of the async writers: node's `fs.promises` by default (a test passes a recording wrapper). */
export type AtomicFs = Pick<typeof fs, 'open' | 'rename' | 'link' | 'rm'>;
/** The file-system calls of writeFileAtomicSync: node's `fs` by default. */
export type AtomicFsSync = Pick<typeof nodeFs, 'openSync' | 'writeSync' | 'fsyncSync' | 'closeSync' | 'renameSync' | 'rmSync'>;

/** True when `file` exists (any kind; a dangling symlink counts as missing). */
export async function fileExists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** True when `dir` is a directory (following symlinks); false when missing or anything else. */
export function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Throw when `dir` is a symlink: swarm never reads or writes a team's files through a linked
 * directory, which could point anywhere (a missing directory is fine: it is created real).
 */
export function refuseLinkedDir(dir: string): void {
  let linked = false;
  try {
    linked = lstatSync(dir).isSymbolicLink();
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT' && errnoCode(e) !== 'ENOTDIR') throw e;
  }
  if (linked) throw new SwarmError('io', `${dir} is a symlink; swarm does not use files through links: replace it with a real directory (mv the files it points to into one)`);
}

/** mkdir -p with mode 0700 for every directory it creates. */
export async function ensureDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
}

export function tempPathFor(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** fsync a directory so a rename/link inside it is durable (best effort where refused). */
export async function fsyncDir(dir: string, io: AtomicFs = fs): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await io.open(dir, 'r');
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await handle?.close();
  }
}

/** Replace `file` with `data` atomically (temp + fsync + rename + fsync dir). */
export async function writeFileAtomic(file: string, data: string | Uint8Array, mode = FILE_MODE, io: AtomicFs = fs): Promise<void> {
  const tmp = tempPathFor(file);
  let handle: fs.FileHandle | undefined;
  try {
    handle = await io.open(tmp, 'wx', mode);
    await handle.writeFile(data);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await io.rename(tmp, file);
  } catch (e) {
    await handle?.close().catch(() => undefined);
    await io.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  await fsyncDir(path.dirname(file), io);
}

/**
 * Create `file` with `data` only if it does not exist yet, never overwriting (temp + fsync + link,
 * which fails with EEXIST, + fsync dir). Returns false, writing nothing, when the file was there.
 */
export async function createFileExclusive(file: string, data: string | Uint8Array, mode = FILE_MODE, io: AtomicFs = fs): Promise<boolean> {
  const tmp = tempPathFor(file);
  try {
    const handle = await io.open(tmp, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await io.link(tmp, file);
    } catch (e) {
      if (errnoCode(e) === 'EEXIST') return false;
      throw e;
    }
  } finally {
    await io.rm(tmp, { force: true });
  }
  await fsyncDir(path.dirname(file), io);
  return true;
}

/** The label of a file kept aside because it did not parse (`<file>.corrupt-<epochMs>`). */
export const CORRUPT_LABEL = 'corrupt';

/** `<file>.<label>-<epochMs>`: the name `file` is kept aside under. */
export function keptAsideName(file: string, label: string, at: number): string {
  return `${file}.${label}-${at}`;
}

/** The time in `name` when it is `<base>.<label>-<epochMs>` (any base when `base` is undefined), else undefined. */
export function keptAsideAt(name: string, label: string, base?: string): number | undefined {
  const suffix = new RegExp(`\\.${label}-(\\d+)$`).exec(name);
  if (suffix === null || (base !== undefined && name !== keptAsideName(base, label, Number(suffix[1])))) return undefined;
  return Number(suffix[1]);
}

/**
 * Move `file` to `<file>.<label>-<epochMs>`, never over an earlier one; the new name. Durable: the
 * kept name is on disk (directory fsynced) before the original name goes.
 */
export async function keepAside(file: string, label: string, now = Date.now(), io: AtomicFs = fs): Promise<string> {
  const dir = path.dirname(file);
  for (let t = now; ; t++) {
    const keptAs = keptAsideName(file, label, t);
    try {
      await io.link(file, keptAs);
    } catch (e) {
      if (errnoCode(e) === 'EEXIST') continue;
      throw new SwarmError('io', `cannot keep ${file} aside: ${(e as Error).message}`, { cause: e });
    }
    await fsyncDir(dir, io);
    await io.rm(file, { force: true });
    await fsyncDir(dir, io);
    return keptAs;
  }
}

/** Write `content` as `<file>.<label>-<epochMs>` (never over an earlier one), durably; the new name. */
export async function keepAsideContent(file: string, label: string, content: string, now = Date.now(), io: AtomicFs = fs): Promise<string> {
  for (let t = now; ; t++) {
    const keptAs = keptAsideName(file, label, t);
    try {
      if (await createFileExclusive(keptAs, content, FILE_MODE, io)) return keptAs;
    } catch (e) {
      throw new SwarmError('io', `cannot keep entries of ${file} aside: ${(e as Error).message}`, { cause: e });
    }
  }
}

/**
 * Synchronous twin of writeFileAtomic, for short critical sections under a lock: no await means the
 * holder is not descheduled between steps while other processes wait for the lock.
 */
export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode = FILE_MODE, io: AtomicFsSync = nodeFs): void {
  const tmp = tempPathFor(file);
  let fd: number | undefined;
  try {
    fd = io.openSync(tmp, 'wx', mode);
    io.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    io.fsyncSync(fd);
    io.closeSync(fd);
    fd = undefined;
    io.renameSync(tmp, file);
  } catch (e) {
    if (fd !== undefined) io.closeSync(fd);
    io.rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDirSync(path.dirname(file), io);
}

function fsyncDirSync(dir: string, io: AtomicFsSync): void {
  let fd: number | undefined;
  try {
    fd = io.openSync(dir, 'r');
    io.fsyncSync(fd);
  } catch {
    // see fsyncDir
  } finally {
    if (fd !== undefined) io.closeSync(fd);
  }
}

/** Flags of an append that refuses to follow a symlink (ELOOP): a log is never written through a link. */
const APPEND_NOFOLLOW = fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | fsConstants.O_NOFOLLOW;

function refuseLink(file: string, e: unknown): never {
  if (errnoCode(e) === 'ELOOP') {
    throw new SwarmError('io', `${file} is a symlink; swarm does not append through links: replace it with a regular file`, { cause: e });
  }
  throw e;
}

/**
 * Can `file` be appended to the way appendFileDurable appends (opened write-only, O_APPEND, no
 * symlink followed; created 0600 when missing)? Opens and closes it; throws what the open throws.
 * Not a reservation: a disk that fills up afterwards still fails the append itself.
 */
export async function checkAppendable(file: string): Promise<void> {
  const handle = await fs.open(file, APPEND_NOFOLLOW, FILE_MODE).catch((e: unknown) => refuseLink(file, e));
  await handle.close();
}

/** Synchronous appendFileDurable (for use inside a lock). */
export function appendFileDurableSync(file: string, data: string): void {
  let fd: number;
  try {
    fd = openSync(file, APPEND_NOFOLLOW, FILE_MODE);
  } catch (e) {
    refuseLink(file, e);
  }
  try {
    if ((fstatSync(fd).mode & NOT_PRIVATE) !== 0) fchmodSync(fd, FILE_MODE);
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Append `data` to `file` (created 0600; an existing file readable by others, e.g. left 0644 by
 * hand, is narrowed to 0600 first) and fsync it; for append-only logs such as audit.jsonl.
 */
export async function appendFileDurable(file: string, data: string): Promise<void> {
  const handle = await fs.open(file, APPEND_NOFOLLOW, FILE_MODE).catch((e: unknown) => refuseLink(file, e));
  try {
    if (((await handle.stat()).mode & NOT_PRIVATE) !== 0) await handle.chmod(FILE_MODE);
    await handle.appendFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Write JSON the way every swarm file is written: pretty (2 spaces) with a trailing newline. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
