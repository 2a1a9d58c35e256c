// team/memory.ts on real files: the one path check (plain <name>.md directly in the directory, no
// symlink, no hard link, no `..`, not absolute), the index as a system prompt gets it (missing,
// cut at 200 lines and at 25,000 characters, unusable), and the listing `swarm memory` prints.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { checkMemoryPath, cutIndex, INDEX_MAX_CHARS, listMemory, MEMORY_FILE_MAX_BYTES, memoryNameProblem, readMemoryFile, readTeamMemory } from '../../src/team/memory.js';
import { useTempRoot } from '../support/tmp-root.js';

let root = '';
let dir = '';
useTempRoot((r) => (root = r), 'swarm-mem-');
beforeEach(async () => {
  dir = path.join(root, 'projects', '-p', 'memory', 'team');
  await fs.mkdir(dir, { recursive: true });
});

describe('checkMemoryPath', () => {
  it('accepts a plain <name>.md (existing or not) and MEMORY.md', async () => {
    await fs.writeFile(path.join(dir, 'build.md'), 'x');
    expect(await checkMemoryPath(dir, 'build.md')).toBe(path.join(await fs.realpath(dir), 'build.md'));
    expect(await checkMemoryPath(dir, 'new_topic-2.md')).toBe(path.join(await fs.realpath(dir), 'new_topic-2.md'));
    expect(await checkMemoryPath(dir, 'MEMORY.md')).toBe(path.join(await fs.realpath(dir), 'MEMORY.md'));
  });

  it('refuses "..", an absolute path, a subdirectory, a non-.md name and an odd name, each in one line', async () => {
    const refusal = (name: string) => checkMemoryPath(dir, name).then(() => 'accepted', (e: Error) => e.message);
    expect(await refusal('../escape.md')).toMatch(/climbs out with "\.\.": a team memory is a plain <name>\.md file directly in .*\(write the topic file, then its line in MEMORY\.md\)$/);
    expect(await refusal('sub/../x.md')).toMatch(/climbs out with "\.\."/);
    expect(await refusal('/etc/x.md')).toMatch(/is an absolute path/);
    expect(await refusal('sub/x.md')).toMatch(/is in a subdirectory/);
    expect(await refusal('notes.txt')).toMatch(/is not a \.md file/);
    expect(await refusal('.hidden.md')).toMatch(/is not a plain name/);
    expect(await refusal('two words.md')).toMatch(/is not a plain name/);
    for (const name of ['../escape.md', '/etc/x.md', 'sub/x.md', 'notes.txt']) expect(memoryNameProblem(name)).toBeDefined();
  });

  it('refuses a symbolic link (dangling too), a directory and a file with another hard link', async () => {
    const outside = path.join(root, 'outside.md');
    await fs.writeFile(outside, 'secret');
    await fs.symlink(outside, path.join(dir, 'link.md'));
    await fs.symlink(path.join(root, 'nowhere.md'), path.join(dir, 'dangling.md'));
    await fs.mkdir(path.join(dir, 'folder.md'));
    await fs.link(outside, path.join(dir, 'hard.md'));
    await expect(checkMemoryPath(dir, 'link.md')).rejects.toThrow(/link\.md is a symbolic link: a team memory is/);
    await expect(checkMemoryPath(dir, 'dangling.md')).rejects.toThrow(/is a symbolic link/);
    await expect(checkMemoryPath(dir, 'folder.md')).rejects.toThrow(/is not a regular file/);
    await expect(checkMemoryPath(dir, 'hard.md')).rejects.toThrow(/hard\.md has 2 hard links: a team memory is/);
    await expect(readMemoryFile(dir, 'hard.md')).rejects.toThrow(/has 2 hard links/);
    await expect(readMemoryFile(dir, 'link.md')).rejects.toThrow(/is a symbolic link/);
  });

  it('reading goes by what was opened: a directory or a FIFO is no regular file (and never waited on), a file over 1 MiB is refused', async () => {
    await fs.mkdir(path.join(dir, 'folder.md'));
    execFileSync('mkfifo', [path.join(dir, 'pipe.md')]);
    await fs.writeFile(path.join(dir, 'huge.md'), Buffer.alloc(MEMORY_FILE_MAX_BYTES + 1, 0x61));
    await expect(readMemoryFile(dir, 'folder.md')).rejects.toThrow(/folder\.md is not a regular file: a team memory is/);
    await expect(readMemoryFile(dir, 'pipe.md')).rejects.toThrow(/pipe\.md is not a regular file/);
    await expect(readMemoryFile(dir, 'huge.md')).rejects.toThrow(/huge\.md is 1048577 bytes, more than a memory file may be \(1048576\); shorten it$/);
    await expect(readMemoryFile(dir, '../x.md')).rejects.toThrow(/climbs out with "\.\."/);
    expect(await readMemoryFile(dir, 'absent.md')).toBeUndefined();
  });

  it('a directory that does not exist yet: the plain path (the first Write creates it)', async () => {
    const none = path.join(root, 'projects', '-q', 'memory', 'team');
    expect(await checkMemoryPath(none, 'a.md')).toBe(path.join(none, 'a.md'));
    expect(await readTeamMemory(none)).toEqual({ dir: none, index: { state: 'missing' } });
  });
});

describe('the index in a system prompt', () => {
  it('missing or empty: none', async () => {
    expect((await readTeamMemory(dir)).index).toEqual({ state: 'missing' });
    await fs.writeFile(path.join(dir, 'MEMORY.md'), '\n  \n');
    expect((await readTeamMemory(dir)).index).toEqual({ state: 'missing' });
  });

  it('its first 200 lines, and that it was cut', async () => {
    const lines = Array.from({ length: 250 }, (_, i) => `- [T${i}](t${i}.md) — hook ${i}`);
    await fs.writeFile(path.join(dir, 'MEMORY.md'), `${lines.join('\n')}\n`);
    const index = (await readTeamMemory(dir)).index;
    expect(index).toMatchObject({ state: 'read', lines: 250, cut: true });
    const text = index.state === 'read' ? index.text : '';
    expect(text.split('\n')).toEqual(lines.slice(0, 200));
    await fs.writeFile(path.join(dir, 'MEMORY.md'), `${lines.slice(0, 200).join('\n')}\n`);
    expect((await readTeamMemory(dir)).index).toMatchObject({ state: 'read', lines: 200, cut: false });
  });

  it('past 25,000 characters: cut at the last line end before them', () => {
    const line = 'x'.repeat(999);
    const cut = cutIndex(Array.from({ length: 30 }, () => line).join('\n'));
    expect(cut.cut).toBe(true);
    expect(cut.text.length).toBeLessThanOrEqual(INDEX_MAX_CHARS);
    expect(cut.text.split('\n').every((l) => l === line)).toBe(true);
  });

  it('a symlinked or hard-linked index is not read: the prompt says why', async () => {
    const secret = path.join(root, 'secret.txt');
    await fs.writeFile(secret, 'TOKEN=abc');
    await fs.symlink(secret, path.join(dir, 'MEMORY.md'));
    const linked = (await readTeamMemory(dir)).index;
    expect(linked).toMatchObject({ state: 'unusable', problem: expect.stringContaining('is a symbolic link') });
    expect(JSON.stringify(linked)).not.toContain('TOKEN');
    await fs.rm(path.join(dir, 'MEMORY.md'));
    await fs.link(secret, path.join(dir, 'MEMORY.md'));
    expect((await readTeamMemory(dir)).index).toMatchObject({ state: 'unusable', problem: expect.stringContaining('has 2 hard links') });
  });
});

describe('listMemory', () => {
  it('topics with size and index line; links and other entries skipped and named', async () => {
    await fs.writeFile(path.join(dir, 'MEMORY.md'), '- [Build](build.md) — npm run build\n');
    await fs.writeFile(path.join(dir, 'build.md'), 'Build: npm run build\n');
    await fs.writeFile(path.join(dir, 'orphan.md'), 'x');
    await fs.symlink('/etc/hostname', path.join(dir, 'evil.md'));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'x');
    const l = await listMemory(dir);
    expect(l.topics).toEqual([
      { name: 'build.md', bytes: 21, indexLine: '- [Build](build.md) — npm run build' },
      { name: 'orphan.md', bytes: 1 },
    ]);
    expect(l.skipped.map((s) => s.name)).toEqual(['evil.md', 'notes.txt']);
    expect(await listMemory(path.join(root, 'none'))).toMatchObject({ exists: false, topics: [] });
  });
});
