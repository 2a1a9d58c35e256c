// The one JSONL reading rule (storage/jsonl.ts) on real files: a torn last line is not a line yet
// (never parsed, never corrupt) and an append cuts it off instead of gluing onto it; a bad whole line
// is returned as corrupt with its number and why, never dropped; blank lines are no entries; a
// missing file has no lines; a path that is not a regular file is refused unread; CRLF lines read.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendJsonlSync, jsonlBadLines, jsonlValues, parseJsonl, readJsonl, readJsonlSync, type LineCheck } from '../../src/storage/jsonl.js';
import { useTempRoot } from '../support/tmp-root.js';

let dir: string;
useTempRoot((d) => (dir = d), 'swarm-jsonl-');

const numbers: LineCheck<number> = (json) => (typeof json === 'number' ? { ok: true, value: json } : { ok: false, problem: 'not a number' });

describe('parseJsonl', () => {
  it('a torn last line is returned apart, unparsed, with where it starts; whole lines are values', () => {
    const text = '1\n2\n{"cut';
    const read = parseJsonl(text, numbers);
    expect(jsonlValues(read)).toEqual([1, 2]);
    expect(jsonlBadLines(read)).toEqual([]);
    expect(read.torn).toEqual({ line: 3, text: '{"cut', offset: 4 });
    // A whole value without its newline is still torn: only the newline says a line was written.
    expect(parseJsonl('1\n2').torn).toEqual({ line: 2, text: '2', offset: 2 });
    expect(jsonlValues(parseJsonl('1\n2'))).toEqual([1]);
    // The offset counts bytes, not characters.
    expect(parseJsonl('"é"\n{').torn?.offset).toBe(Buffer.byteLength('"é"\n'));
  });

  it('a bad middle line is corrupt: its number, text and why, between the good ones', () => {
    const read = parseJsonl('1\n{half\n"x"\n3\n', numbers);
    expect(jsonlValues(read)).toEqual([1, 3]);
    expect(jsonlBadLines(read)).toEqual([
      { line: 2, text: '{half', problem: expect.stringMatching(/^not JSON: /) },
      { line: 3, text: '"x"', problem: 'not a number' },
    ]);
    expect(read.torn).toBeUndefined();
  });

  it('a bad last line that has its newline is corrupt, not torn', () => {
    const read = parseJsonl('1\n{half\n');
    expect(read.torn).toBeUndefined();
    expect(jsonlBadLines(read).map((b) => b.line)).toEqual([2]);
  });

  it('blank lines are no entries but keep their place; empty text has no lines; CRLF lines read', () => {
    const read = parseJsonl('1\n\n   \n2\n', numbers);
    expect(jsonlValues(read)).toEqual([1, 2]);
    expect(read.lines.map((l) => ('blank' in l ? l.line : 0))).toEqual([0, 2, 3, 0]);
    expect(parseJsonl('')).toEqual({ lines: [] });
    expect(jsonlValues(parseJsonl('{"a":1}\r\n{"b":2}\r\n'))).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

describe('readJsonl and readJsonlSync', () => {
  it('a missing file has no lines', async () => {
    const file = path.join(dir, 'none.jsonl');
    expect(await readJsonl(file)).toEqual({ lines: [] });
    expect(readJsonlSync(file)).toEqual({ lines: [] });
  });

  it('read a regular file by the rule', async () => {
    const file = path.join(dir, 'log.jsonl');
    await writeFile(file, '1\nnope\n2\n3');
    for (const read of [await readJsonl(file, numbers), readJsonlSync(file, numbers)]) {
      expect(jsonlValues(read)).toEqual([1, 2]);
      expect(jsonlBadLines(read).map((b) => b.line)).toEqual([2]);
      expect(read.torn?.text).toBe('3');
    }
  });

  it('a symlink, a FIFO or a directory is refused in one line, unread (a FIFO does not block)', async () => {
    await writeFile(path.join(dir, 'secret'), '"SECRET"\n');
    const link = path.join(dir, 'link.jsonl');
    await symlink(path.join(dir, 'secret'), link);
    const fifo = path.join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const sub = path.join(dir, 'dir.jsonl');
    await mkdir(sub);
    for (const [file, what] of [
      [link, 'a symbolic link'],
      [fifo, 'a FIFO (named pipe)'],
      [sub, 'a directory'],
    ] as const) {
      await expect(readJsonl(file)).rejects.toMatchObject({ kind: 'io', message: expect.stringContaining(`${file} is ${what}, not a regular file`) });
      expect(() => readJsonlSync(file)).toThrow(`${file} is ${what}, not a regular file`);
    }
  });
});

describe('appendJsonlSync', () => {
  it('appends whole lines, creating the file', async () => {
    const file = path.join(dir, 'a.jsonl');
    appendJsonlSync(file, ['x', { y: 1 }]);
    appendJsonlSync(file, []);
    expect(await readFile(file, 'utf8')).toBe('"x"\n{"y":1}\n');
  });

  it('cuts a torn last line off before appending, so the new line is not glued onto it', async () => {
    const file = path.join(dir, 'b.jsonl');
    await writeFile(file, '"one"\n"tw');
    appendJsonlSync(file, ['three']);
    expect(await readFile(file, 'utf8')).toBe('"one"\n"three"\n');
    await writeFile(file, `"${'z'.repeat(70_000)}`); // no whole line at all, longer than one read
    appendJsonlSync(file, ['four']);
    expect(await readFile(file, 'utf8')).toBe('"four"\n');
  });

  it('refuses to append through a symlink', async () => {
    const target = path.join(dir, 'target');
    await writeFile(target, '"t"\n"half');
    const link = path.join(dir, 'link.jsonl');
    await symlink(target, link);
    expect(() => appendJsonlSync(link, ['x'])).toThrow(/is a symlink/);
    expect(await readFile(target, 'utf8')).toBe('"t"\n"half');
  });
});
