// The permission question's preview of a tool input: a unified diff for Edit/MultiEdit/Write.
import { stripVTControlCharacters as plain } from 'node:util';
import { describe, expect, it } from 'vitest';
import { describeRequestInput, shortDiff } from '../../../src/cli/output/permission.js';

const lines = (out: string[]): string[] => out.map(plain);

describe('shortDiff', () => {
  it('shows only what changed, with one line of context, as unified diff lines', () => {
    expect(lines(shortDiff('one\ntwo\nthree\nfour', 'one\nTWO\nthree\nfour'))).toEqual([' one', '-two', '+TWO', ' three']);
  });

  it('separates distant changes into hunks with an @@ header', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].join('\n');
    const next = ['A', 'b', 'c', 'd', 'e', 'f', 'G'].join('\n');
    expect(lines(shortDiff(old, next))).toEqual(['-a', '+A', ' b', '@@ -6,2 +6,2 @@', ' f', '-g', '+G']);
  });

  it('cuts a long diff after 8 lines and says how many are left', () => {
    const content = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n');
    const out = lines(shortDiff('', content));
    expect(out).toHaveLength(9);
    expect(out.slice(0, 2)).toEqual(['+line 1', '+line 2']);
    expect(out[8]).toBe('  … 12 more lines');
  });

  it('says so when nothing changes (and never prints "\\ No newline at end of file")', () => {
    expect(lines(shortDiff('same', 'same'))).toEqual(['(no change)']);
    expect(lines(shortDiff('x', 'y'))).toEqual(['-x', '+y']);
  });
});

describe('describeRequestInput', () => {
  it('Edit: the file, then the diff of old_string → new_string', () => {
    expect(lines(describeRequestInput('Edit', { file_path: '/p/a.ts', old_string: 'let x = 1;', new_string: 'const x = 1;' }))).toEqual([
      '/p/a.ts',
      '-let x = 1;',
      '+const x = 1;',
    ]);
  });

  it('MultiEdit: the file with the edit count, then the first edit as a diff', () => {
    const edits = [
      { old_string: 'a', new_string: 'b' },
      { old_string: 'c', new_string: 'd' },
    ];
    expect(lines(describeRequestInput('MultiEdit', { file_path: '/p/a.ts', edits }))).toEqual(['/p/a.ts (2 edits)', '-a', '+b']);
  });

  it('Write: the file, then its content as added lines (or "(empty file)")', () => {
    expect(lines(describeRequestInput('Write', { file_path: '/p/n.md', content: '# Title\n\nBody\n' }))).toEqual(['/p/n.md', '+# Title', '+', '+Body']);
    expect(lines(describeRequestInput('Write', { file_path: '/p/n.md', content: '' }))).toEqual(['/p/n.md', '(empty file)']);
  });

  it('Bash: the command after `$ `', () => {
    expect(lines(describeRequestInput('Bash', { command: 'npm test' }))).toEqual(['$ npm test']);
  });
});
