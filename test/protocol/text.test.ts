// One-line text: whitespace collapsed, cut to `max` characters with a trailing ellipsis.
import { describe, expect, it } from 'vitest';
import { oneLine } from '../../src/protocol/text.js';

describe('oneLine', () => {
  it('collapses whitespace runs, newlines included, and trims', () => {
    expect(oneLine('  a\n\tb   c \n')).toBe('a b c');
  });

  it('keeps text of exactly max characters and cuts longer text to max, the last one …', () => {
    expect(oneLine('abcde', 5)).toBe('abcde');
    expect(oneLine('abcdef', 5)).toBe('abcd…');
    expect(oneLine('x'.repeat(500))).toHaveLength(160);
  });
});
