// protocol/glob.ts: the one glob reading shared by permission rules and the Glob/Grep tools.
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import { compileGlob, globError } from '../../src/protocol/glob.js';

describe('compileGlob', () => {
  it.each([
    // character classes
    ['[abc].ts', 'b.ts', false, true],
    ['[abc].ts', 'd.ts', false, false],
    ['[!a]*.md', 'b1.md', false, true],
    ['[!a]*.md', 'a1.md', false, false],
    ['[^a]*.md', 'a1.md', false, false],
    ['x[!a]y', 'x.y', false, true], // mid-segment a negated class may match a dot
    ['[[:digit:]]x', '7x', false, true],
    // dot files, both ways
    ['*', '.env', false, false],
    ['*', '.env', true, true],
    ['[!a]env', '.env', false, false], // a negated class at a segment start never matches the dot
    ['[!a]env', '.env', true, true],
    ['src/[^x]*', 'src/.git', false, false],
    ['.env*', '.env.local', false, true],
    ['{a,.b}/c', '.b/c', false, true],
    ['**', 'a/.b/c', false, false],
    ['**', 'a/.b/c', true, true],
    // `**`
    ['src/**', 'src', false, true],
    ['**/*.ts', 'a.ts', false, true],
    ['a/**/b', 'a/b', false, true],
    ['a/**/b', 'a/x/y/b', false, true],
    ['src/*.ts', 'src/x/y.ts', false, false],
    // braces
    ['*.{js,json}', 'a.json', false, true],
    ['*.{js,json}', 'a.ts', false, false],
    ['v{1..3}', 'v2', false, true],
    // literal, not syntax
    ['!a', 'b', false, false],
    ['!a', '!a', false, true],
    ['a(b)c', 'abc', false, false],
    ['a(b)c', 'a(b)c', false, true],
    ['*(1).txt', 'x(1).txt', true, true],
    ['a@(b)', 'ab', false, false],
    ['a|b', 'a', false, false],
    ['a\\*b', 'a*b', false, true],
    ['a\\*b', 'axb', false, false],
  ] as const)('%j ~ %j (dot %s) → %s', (pattern, p, dot, expected) => {
    expect(compileGlob(pattern, { dot })(p)).toBe(expected);
  });

  it('refuses a trailing backslash and unclosed or nested braces, as both old matchers did', () => {
    expect(globError('a\\')).toMatch(/escapes nothing/);
    expect(globError('{a,b')).toMatch(/unclosed/);
    expect(globError('{a,{b}}')).toMatch(/nested/);
    expect(globError('[{]x')).toBeUndefined(); // a brace inside a class is a character
    expect(globError('a\\{b')).toBeUndefined();
    let error: unknown;
    try {
      compileGlob('src/{a');
    } catch (e) {
      error = e;
    }
    expect(isSwarmError(error, 'invalid_input')).toBe(true);
  });
});
