// Reading only regular files (storage/regular-file), on real entries: a regular file is read; a
// missing one is missing; a symlink (dangling or not), a FIFO without a writer, a directory, a
// socket and a device are named by kind without being read; other failures are io errors; and the
// locked JSON readers (storage/json-file) refuse an odd entry in one line, writing nothing.
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mutateJsonFile, readJsonFile } from '../../src/storage/json-file.js';
import { entryKind, oddFileError, readRegularFileSync } from '../../src/storage/regular-file.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-regular-file-');

const SECRET = 'SECRET-BYTES not json';

/** One of each kind of entry in `dir`; the socket's server is closed when the test is done. */
async function entries(): Promise<{ file: string; link: string; dangling: string; fifo: string; sub: string; sock: string; close: () => Promise<void> }> {
  const file = path.join(dir, 'file.json');
  await writeFile(file, '{"n": 1}');
  await writeFile(path.join(dir, 'secret.txt'), SECRET);
  const link = path.join(dir, 'link.json');
  await symlink(path.join(dir, 'secret.txt'), link);
  const dangling = path.join(dir, 'dangling.json');
  await symlink(path.join(dir, 'nowhere'), dangling);
  const fifo = path.join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const sub = path.join(dir, 'dir.json');
  await mkdir(sub);
  const sock = path.join(dir, 'sock.json');
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(sock, resolve));
  return { file, link, dangling, fifo, sub, sock, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('readRegularFileSync and entryKind', () => {
  it('read a regular file, and name every other kind without reading it (a FIFO with no writer does not block)', async () => {
    const e = await entries();
    try {
      expect(readRegularFileSync(e.file)).toEqual({ text: '{"n": 1}' });
      expect(readRegularFileSync(path.join(dir, 'none.json'))).toEqual({ missing: true });
      expect(readRegularFileSync(e.link)).toEqual({ odd: 'symlink' });
      expect(readRegularFileSync(e.dangling)).toEqual({ odd: 'symlink' });
      expect(readRegularFileSync(e.fifo)).toEqual({ odd: 'fifo' });
      expect(readRegularFileSync(e.sub)).toEqual({ odd: 'directory' });
      expect(readRegularFileSync(e.sock)).toEqual({ odd: 'socket' });
      expect(readRegularFileSync('/dev/null')).toEqual({ odd: 'device' });
      expect([e.file, path.join(dir, 'none.json'), e.link, e.dangling, e.fifo, e.sub, e.sock, '/dev/null'].map(entryKind)).toEqual([
        'file',
        'missing',
        'symlink',
        'symlink',
        'fifo',
        'directory',
        'socket',
        'device',
      ]);
    } finally {
      await e.close();
    }
  });

  it('any other failure is an io error naming the file', async () => {
    const f = path.join(dir, 'file.json');
    await writeFile(f, 'x');
    expect(() => readRegularFileSync(path.join(f, 'below'))).toThrow(expect.objectContaining({ kind: 'io', message: expect.stringMatching(/^cannot read \S+below: ENOTDIR/) }));
    expect(() => entryKind(path.join(f, 'below'))).toThrow(expect.objectContaining({ kind: 'io', message: expect.stringMatching(/^cannot stat \S+below: ENOTDIR/) }));
  });

  it('the error for an odd entry says what it is and how to remove it', () => {
    expect(oddFileError('/t/4.json', 'fifo').message).toBe("/t/4.json is a FIFO (named pipe), not a regular file; swarm does not read it: remove it (rm '/t/4.json')");
    expect(oddFileError('/t/4.json', 'directory').message).toBe("/t/4.json is a directory, not a regular file; swarm does not read it: remove it (rmdir '/t/4.json')");
  });
});

describe('the JSON readers', () => {
  const Counter = z.object({ n: z.number() });
  const opts = { schema: Counter, init: () => ({ n: 0 }) };

  it('refuse a FIFO, a symlink or a directory in one line, never reading or replacing it', async () => {
    const e = await entries();
    try {
      for (const [f, what] of [
        [e.fifo, 'a FIFO (named pipe)'],
        [e.link, 'a symbolic link'],
        [e.sub, 'a directory'],
      ] as const) {
        const err = await mutateJsonFile(f, opts, () => ({ write: { n: 1 }, result: undefined })).catch((x: unknown) => x);
        expect(err).toMatchObject({ kind: 'io', message: expect.stringContaining(`${f} is ${what}, not a regular file`) });
        await expect(readJsonFile(f, { schema: Counter })).rejects.toMatchObject({ kind: 'io', message: expect.stringContaining(`${f} is ${what}`) });
        expect(String((err as Error).message)).not.toContain('SECRET');
      }
      expect((await lstat(e.fifo)).isFIFO()).toBe(true);
      expect((await lstat(e.link)).isSymbolicLink()).toBe(true);
      expect(await readFile(path.join(dir, 'secret.txt'), 'utf8')).toBe(SECRET);
    } finally {
      await e.close();
    }
  });
});
