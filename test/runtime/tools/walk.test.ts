// walkFiles: the file listing under Glob and Grep (tinyglobby), with skipped directories never
// entered, symlinks never followed or listed, a directory gone mid-walk skipped, and a cap that
// still returns what it found.
import { promises as fs, rmSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { walkFiles } from '../../../src/runtime/tools/walk.js';
import { tempRoot } from '../../support/tmp-root.js';

let dir: string;

beforeEach(async () => {
  dir = await tempRoot('swarm-walk-');
  for (const f of ['b.txt', 'a/z.txt', 'a/b/y.txt', '.env', '.venv/lib/x.py', 'node_modules/m/i.js', 'we[ird]/s.txt']) {
    await fs.mkdir(path.dirname(path.join(dir, f)), { recursive: true });
    await fs.writeFile(path.join(dir, f), 'x');
  }
  await fs.mkdir(path.join(dir, 'elsewhere'));
  await fs.writeFile(path.join(dir, 'elsewhere/secret.txt'), 'x');
  await fs.symlink(path.join(dir, 'elsewhere'), path.join(dir, 'link-dir'));
  await fs.symlink(path.join(dir, 'elsewhere/secret.txt'), path.join(dir, 'link-file.txt'));
  await fs.symlink(path.join(dir, 'link-loop'), path.join(dir, 'link-loop'));
});

const rels = async (opts: Parameters<typeof walkFiles>[1] = {}): Promise<string[]> => (await walkFiles(dir, opts)).files.map((f) => f.rel);

describe('walkFiles', () => {
  it('lists every regular file, dot files included, sorted, with absolute paths', async () => {
    const r = await walkFiles(dir);
    expect(r.files.map((f) => f.rel)).toEqual([
      '.env',
      '.venv/lib/x.py',
      'a/b/y.txt',
      'a/z.txt',
      'b.txt',
      'elsewhere/secret.txt',
      'node_modules/m/i.js',
      'we[ird]/s.txt',
    ]);
    expect(r.files[0]!.abs).toBe(path.join(dir, '.env'));
    expect(r.capped).toBe(false);
  });

  it('never follows or lists a symlink (to a directory, to a file, or a loop)', async () => {
    expect((await rels()).filter((r) => r.startsWith('link'))).toEqual([]);
  });

  it('never enters a directory skipDir refuses, and asks with its absolute path and name', async () => {
    const asked: string[] = [];
    const files = await rels({
      skipDir: (abs, name) => {
        asked.push(path.relative(dir, abs));
        return name.startsWith('.') || name === 'node_modules' || abs === path.join(dir, 'we[ird]');
      },
    });
    expect(files).toEqual(['.env', 'a/b/y.txt', 'a/z.txt', 'b.txt', 'elsewhere/secret.txt']);
    expect(asked).not.toContain(path.join('.venv', 'lib')); // pruned, not filtered afterwards
    expect(asked).toContain('.venv');
  });

  it('stops after maxEntries directory entries, keeping what it found, and says so', async () => {
    const r = await walkFiles(dir, { maxEntries: 3 });
    expect(r.capped).toBe(true);
    expect(r.files.length).toBeGreaterThan(0);
    expect(r.files.length).toBeLessThan(3);
  });

  it('stops when the signal aborts', async () => {
    await expect(walkFiles(dir, { signal: AbortSignal.abort() })).rejects.toThrow();
  });

  it('a directory that is gone when its turn comes is skipped, and the rest is listed', async () => {
    const files = await rels({
      skipDir: (abs, name) => {
        if (name === 'a') rmSync(abs, { recursive: true }); // removed between its parent's listing and its own
        return false;
      },
    });
    expect(files).toEqual(['.env', '.venv/lib/x.py', 'b.txt', 'elsewhere/secret.txt', 'node_modules/m/i.js', 'we[ird]/s.txt']);
  });
});
