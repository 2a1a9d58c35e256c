// storage/atomic.ts when something goes wrong: a failed write leaves no temp file and no open file
// behind and says what failed; an error that is not the expected one (EEXIST, ENOENT, ELOOP) is
// passed on, never taken for it; a directory fsync that is refused is best effort. Real files in a
// temp dir; a failing call is injected through the writers' `io` parameter where the real file
// system cannot be made to fail (the tests run as root).
import * as nodeFs from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import {
  appendFileDurable,
  appendFileDurableSync,
  createFileExclusive,
  fsyncDir,
  isDirectory,
  keepAside,
  keepAsideContent,
  refuseLinkedDir,
  writeFileAtomic,
  writeFileAtomicSync,
  type AtomicFs,
  type AtomicFsSync,
} from '../../src/storage/atomic.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-atomic-err-');

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** The names in `dir` (to see that no temp file is left). */
async function names(): Promise<string[]> {
  return (await fs.readdir(dir)).sort();
}

/** The fd the next open gets: the lowest free one, so an fd left open by a call shows as a higher number. */
function nextFd(): number {
  const fd = nodeFs.openSync(dir, 'r');
  nodeFs.closeSync(fd);
  return fd;
}

describe('isDirectory', () => {
  it('is true for a directory or a link to one, false for a file or a missing path', async () => {
    await fs.mkdir(path.join(dir, 'd'));
    await fs.writeFile(path.join(dir, 'f'), '');
    await fs.symlink(path.join(dir, 'd'), path.join(dir, 'ld'));
    expect(isDirectory(path.join(dir, 'd'))).toBe(true);
    expect(isDirectory(path.join(dir, 'ld'))).toBe(true);
    expect(isDirectory(path.join(dir, 'f'))).toBe(false);
    expect(isDirectory(path.join(dir, 'missing'))).toBe(false);
  });
});

describe('refuseLinkedDir on paths it cannot look at', () => {
  it('a linked directory is refused as an io error (what the CLI reports as such)', async () => {
    await fs.mkdir(path.join(dir, 'real'));
    await fs.symlink(path.join(dir, 'real'), path.join(dir, 'linked'));
    let err: unknown;
    try {
      refuseLinkedDir(path.join(dir, 'linked'));
    } catch (e) {
      err = e;
    }
    expect(isSwarmError(err, 'io')).toBe(true);
  });
  it('a path under a regular file (ENOTDIR) is not a link: nothing to refuse', async () => {
    await fs.writeFile(path.join(dir, 'f'), '');
    expect(() => refuseLinkedDir(path.join(dir, 'f', 'sub'))).not.toThrow();
  });
  it('any other error (a symlink loop above it) is passed on, not taken for "no link"', async () => {
    await fs.symlink(path.join(dir, 'loop'), path.join(dir, 'loop'));
    expect(() => refuseLinkedDir(path.join(dir, 'loop', 'sub'))).toThrow(expect.objectContaining({ code: 'ELOOP' }));
  });
});

describe('a directory fsync the file system refuses is best effort', () => {
  it('fsyncDir resolves when the directory cannot be opened', async () => {
    const io: AtomicFs = { ...fs, open: () => Promise.reject(errno('EACCES')) };
    await expect(fsyncDir(dir, io)).resolves.toBeUndefined();
  });
  it('writeFileAtomicSync still writes the file when the directory cannot be opened', async () => {
    const file = path.join(dir, 'a.json');
    const io: AtomicFsSync = {
      ...nodeFs,
      openSync: ((p: nodeFs.PathLike, ...rest: unknown[]) => {
        if (p === dir) throw errno('EACCES');
        return (nodeFs.openSync as (...a: unknown[]) => number)(p, ...rest);
      }) as AtomicFsSync['openSync'],
    };
    writeFileAtomicSync(file, '[1]', undefined, io);
    expect(await fs.readFile(file, 'utf8')).toBe('[1]');
  });
});

describe('a failed atomic write leaves the target as it was, no temp file, no open file', () => {
  it('writeFileAtomic whose fsync fails: the error is passed on, the temp is closed and removed', async () => {
    const file = path.join(dir, 'a.json');
    await fs.writeFile(file, 'old');
    const closed: string[] = [];
    const io: AtomicFs = {
      ...fs,
      open: (async (p: nodeFs.PathLike, ...rest: unknown[]) => {
        const handle = await (fs.open as (...a: unknown[]) => Promise<fs.FileHandle>)(p, ...rest);
        return Object.assign(Object.create(handle) as fs.FileHandle, {
          writeFile: (data: string) => handle.writeFile(data),
          sync: () => Promise.reject(errno('EIO')),
          close: () => (closed.push(String(p)), handle.close()),
        });
      }) as AtomicFs['open'],
    };
    await expect(writeFileAtomic(file, 'new', undefined, io)).rejects.toMatchObject({ code: 'EIO' });
    expect(closed).toHaveLength(1);
    expect(closed[0]).toMatch(/a\.json\.tmp-/);
    expect(await names()).toEqual(['a.json']);
    expect(await fs.readFile(file, 'utf8')).toBe('old');
  });
  it('writeFileAtomic over a directory: the rename error is passed on, no temp is left', async () => {
    await fs.mkdir(path.join(dir, 'taken'));
    await fs.writeFile(path.join(dir, 'taken', 'x'), '');
    await expect(writeFileAtomic(path.join(dir, 'taken'), 'new')).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) });
    expect(await names()).toEqual(['taken']);
  });
  it('writeFileAtomicSync whose fsync fails: the error is passed on, the temp fd is closed and the temp removed', async () => {
    const file = path.join(dir, 'b.json');
    const before = nextFd();
    const io: AtomicFsSync = { ...nodeFs, fsyncSync: () => { throw errno('EIO'); } };
    expect(() => writeFileAtomicSync(file, 'new', undefined, io)).toThrow(expect.objectContaining({ code: 'EIO' }));
    expect(nextFd()).toBe(before);
    expect(await names()).toEqual([]);
  });
  it('writeFileAtomicSync whose temp cannot be created: that error is passed on, not one from the clean-up', async () => {
    const io: AtomicFsSync = { ...nodeFs, openSync: () => { throw errno('EMFILE'); } };
    expect(() => writeFileAtomicSync(path.join(dir, 'c.json'), 'new', undefined, io)).toThrow(expect.objectContaining({ code: 'EMFILE' }));
    expect(await names()).toEqual([]);
  });
  it('writeFileAtomicSync over a directory: the rename error is passed on, no temp is left', async () => {
    await fs.mkdir(path.join(dir, 'taken'));
    await fs.writeFile(path.join(dir, 'taken', 'x'), '');
    expect(() => writeFileAtomicSync(path.join(dir, 'taken'), 'new')).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) }));
    expect(await names()).toEqual(['taken']);
  });
});

describe('only the expected error is taken for "already there" or "a link"', () => {
  it('createFileExclusive: a link error other than EEXIST is passed on (not "the file was there"), the temp removed', async () => {
    const file = path.join(dir, 'c.json');
    const io: AtomicFs = { ...fs, link: () => Promise.reject(errno('EXDEV')) };
    await expect(createFileExclusive(file, '{}', undefined, io)).rejects.toMatchObject({ code: 'EXDEV' });
    expect(await names()).toEqual([]);
  });
  it('keepAside of a missing file fails at once, saying which file and why, with the cause kept', async () => {
    const file = path.join(dir, 'gone.json');
    const err = await keepAside(file, 'corrupt', 1000).catch((e: unknown) => e);
    expect(isSwarmError(err, 'io')).toBe(true);
    expect((err as Error).message).toBe(`cannot keep ${file} aside: ${((err as Error).cause as Error).message}`);
    expect((err as Error).cause).toMatchObject({ code: 'ENOENT' });
    expect(await names()).toEqual([]);
  });
  it('keepAsideContent that cannot write fails at once, saying which file and why, with the cause kept', async () => {
    const file = path.join(dir, 'inbox.json');
    const io: AtomicFs = { ...fs, link: () => Promise.reject(errno('EXDEV')) };
    const err = await keepAsideContent(file, 'corrupt', '["bad"]', 1000, io).catch((e: unknown) => e);
    expect(isSwarmError(err, 'io')).toBe(true);
    expect((err as Error).message).toBe(`cannot keep entries of ${file} aside: EXDEV: injected`);
    expect((err as Error).cause).toMatchObject({ code: 'EXDEV' });
    expect(await names()).toEqual([]);
  });
  it('an append to a log in a missing directory fails with that error, not "is a symlink"', async () => {
    const file = path.join(dir, 'no-such-dir', 'audit.jsonl');
    await expect(appendFileDurable(file, 'x\n')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => appendFileDurableSync(file, 'x\n')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
  it('an append to a symlinked log is refused with the ELOOP error as its cause', async () => {
    await fs.writeFile(path.join(dir, 'elsewhere'), '');
    await fs.symlink(path.join(dir, 'elsewhere'), path.join(dir, 'audit.jsonl'));
    const err = await appendFileDurable(path.join(dir, 'audit.jsonl'), 'x\n').catch((e: unknown) => e);
    expect((err as Error).cause).toMatchObject({ code: 'ELOOP' });
    let errSync: unknown;
    try {
      appendFileDurableSync(path.join(dir, 'audit.jsonl'), 'x\n');
    } catch (e) {
      errSync = e;
    }
    expect(isSwarmError(errSync, 'io')).toBe(true);
    expect((errSync as Error).cause).toMatchObject({ code: 'ELOOP' });
  });
});

describe('appending to a log', () => {
  it('appendFileDurableSync narrows a log left 0644 to 0600 and appends', async () => {
    const file = path.join(dir, 'audit.jsonl');
    await fs.writeFile(file, 'a\n', { mode: 0o644 });
    await fs.chmod(file, 0o644);
    appendFileDurableSync(file, 'b\n');
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect(await fs.readFile(file, 'utf8')).toBe('a\nb\n');
  });
  it('neither append leaves the log open', async () => {
    const file = path.join(dir, 'audit.jsonl');
    const before = nextFd();
    appendFileDurableSync(file, 'a\n');
    expect(nextFd()).toBe(before);
    await appendFileDurable(file, 'b\n');
    expect(nextFd()).toBe(before);
    expect(await fs.readFile(file, 'utf8')).toBe('a\nb\n');
  });
});
