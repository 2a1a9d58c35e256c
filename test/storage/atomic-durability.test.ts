// storage/atomic.ts durability: each atomic writer, run on the real file system through a recording
// wrapper of its fs calls, must fsync the temp file before the rename/link and fsync the directory
// after it (a crash can otherwise leave an empty file under the new name, or lose the rename).
import * as nodeFs from 'node:fs';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileExclusive, keepAside, keepAsideContent, writeFileAtomic, writeFileAtomicSync, type AtomicFs, type AtomicFsSync } from '../../src/storage/atomic.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-durable-');

/** Names a path the way the expectations read: the target, its temp file, or its directory. */
function namer(file: string): (p: unknown) => string {
  return (p) => {
    const s = String(p);
    if (s === file) return 'file';
    if (s.startsWith(`${file}.tmp-`)) return 'temp';
    if (s.startsWith(`${file}.corrupt-`)) return s.includes('.tmp-') ? 'kept temp' : 'kept';
    if (s === path.dirname(file)) return 'dir';
    return s;
  };
}

/** fs.promises with open/rename/link/rm recorded, and each opened handle's writeFile/sync/close. */
function recordingFs(file: string, calls: string[]): AtomicFs {
  const name = namer(file);
  const handleOps: Record<string, string> = { writeFile: 'write', sync: 'fsync', close: 'close' };
  return {
    open: (async (p: nodeFs.PathLike, ...rest: unknown[]) => {
      calls.push(`open ${name(p)}`);
      const handle = await (fs.open as (...a: unknown[]) => Promise<fs.FileHandle>)(p, ...rest);
      return new Proxy(handle, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (typeof value !== 'function') return value;
          const op = handleOps[String(prop)];
          return (...args: unknown[]) => {
            if (op !== undefined) calls.push(`${op} ${name(p)}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    }) as AtomicFs['open'],
    rename: async (from, to) => {
      calls.push(`rename ${name(from)} -> ${name(to)}`);
      return fs.rename(from, to);
    },
    link: async (from, to) => {
      calls.push(`link ${name(from)} -> ${name(to)}`);
      return fs.link(from, to);
    },
    rm: async (p, opts) => {
      calls.push(`rm ${name(p)}`);
      return fs.rm(p, opts);
    },
  };
}

/** node's fs (sync calls) with each call recorded by the path its fd was opened on. */
function recordingFsSync(file: string, calls: string[]): AtomicFsSync {
  const name = namer(file);
  const fds = new Map<number, string>();
  return {
    openSync: ((p: nodeFs.PathLike, ...rest: unknown[]) => {
      const fd = (nodeFs.openSync as (...a: unknown[]) => number)(p, ...rest);
      fds.set(fd, name(p));
      calls.push(`open ${name(p)}`);
      return fd;
    }) as AtomicFsSync['openSync'],
    writeSync: ((fd: number, ...rest: unknown[]) => {
      calls.push(`write ${fds.get(fd)}`);
      return (nodeFs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
    }) as AtomicFsSync['writeSync'],
    fsyncSync: (fd) => {
      calls.push(`fsync ${fds.get(fd)}`);
      nodeFs.fsyncSync(fd);
    },
    closeSync: (fd) => {
      calls.push(`close ${fds.get(fd)}`);
      nodeFs.closeSync(fd);
    },
    renameSync: (from, to) => {
      calls.push(`rename ${name(from)} -> ${name(to)}`);
      nodeFs.renameSync(from, to);
    },
    rmSync: (p, opts) => {
      calls.push(`rm ${name(p)}`);
      nodeFs.rmSync(p, opts);
    },
  };
}

describe('atomic writers are durable: fsync(temp) before the rename, fsync(dir) after it', () => {
  it('writeFileAtomic: open → write → fsync(temp) → close → rename → fsync(dir)', async () => {
    const file = path.join(dir, 'a.json');
    const calls: string[] = [];
    await writeFileAtomic(file, '[1]', undefined, recordingFs(file, calls));
    expect(calls).toEqual(['open temp', 'write temp', 'fsync temp', 'close temp', 'rename temp -> file', 'open dir', 'fsync dir', 'close dir']);
    expect(await fs.readFile(file, 'utf8')).toBe('[1]');
  });

  it('writeFileAtomicSync: the same sequence with the synchronous calls', async () => {
    const file = path.join(dir, 'b.json');
    const calls: string[] = [];
    writeFileAtomicSync(file, '[2]', undefined, recordingFsSync(file, calls));
    expect(calls).toEqual(['open temp', 'write temp', 'fsync temp', 'close temp', 'rename temp -> file', 'open dir', 'fsync dir', 'close dir']);
    expect(await fs.readFile(file, 'utf8')).toBe('[2]');
  });

  it('createFileExclusive: open → write → fsync(temp) → close → link → rm(temp) → fsync(dir)', async () => {
    const file = path.join(dir, 'c.json');
    const calls: string[] = [];
    expect(await createFileExclusive(file, '{}', undefined, recordingFs(file, calls))).toBe(true);
    expect(calls).toEqual(['open temp', 'write temp', 'fsync temp', 'close temp', 'link temp -> file', 'rm temp', 'open dir', 'fsync dir', 'close dir']);
    expect(await fs.readFile(file, 'utf8')).toBe('{}');
  });
});

describe('keeping a corrupt file aside is durable: the kept name is on disk before the original goes', () => {
  it('keepAside: link → fsync(dir) → rm → fsync(dir)', async () => {
    const file = path.join(dir, 'd.json');
    await fs.writeFile(file, 'not json');
    const calls: string[] = [];
    const keptAs = await keepAside(file, 'corrupt', 1000, recordingFs(file, calls));
    expect(calls).toEqual(['link file -> kept', 'open dir', 'fsync dir', 'close dir', 'rm file', 'open dir', 'fsync dir', 'close dir']);
    expect(await fs.readFile(keptAs, 'utf8')).toBe('not json');
    await expect(fs.access(file)).rejects.toThrow();
  });

  it('keepAsideContent: the kept entries are written and fsynced like createFileExclusive, never over an earlier file', async () => {
    const file = path.join(dir, 'e.json');
    await fs.writeFile(`${file}.corrupt-1000`, 'earlier');
    const calls: string[] = [];
    const keptAs = await keepAsideContent(file, 'corrupt', '["bad"]', 1000, recordingFs(file, calls));
    expect(keptAs).toBe(`${file}.corrupt-1001`);
    expect(calls.slice(-9)).toEqual(['open kept temp', 'write kept temp', 'fsync kept temp', 'close kept temp', 'link kept temp -> kept', 'rm kept temp', 'open dir', 'fsync dir', 'close dir']);
    expect(await fs.readFile(`${file}.corrupt-1000`, 'utf8')).toBe('earlier');
    expect(await fs.readFile(keptAs, 'utf8')).toBe('["bad"]');
  });
});
