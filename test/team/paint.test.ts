// The one colour-name → chalk mapping: every palette colour, and bold for anything else.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { COLORS } from '../../src/protocol/colors.js';
import { painter } from '../../src/team/paint.js';

describe('painter', () => {
  const chalk = new Chalk({ level: 2 });

  it('paints each palette colour with its own escape (purple as magenta, orange and pink as 256-colour)', () => {
    expect(COLORS.map((c) => painter(chalk, c)('x'))).toEqual([
      '\u001b[31mx\u001b[39m',
      '\u001b[34mx\u001b[39m',
      '\u001b[32mx\u001b[39m',
      '\u001b[33mx\u001b[39m',
      '\u001b[35mx\u001b[39m',
      '\u001b[38;5;208mx\u001b[39m',
      '\u001b[38;5;205mx\u001b[39m',
      '\u001b[36mx\u001b[39m',
    ]);
  });

  it('an unknown or missing colour is bold', () => {
    expect(painter(chalk, 'magenta')('x')).toBe('\u001b[1mx\u001b[22m');
    expect(painter(chalk, undefined)('x')).toBe('\u001b[1mx\u001b[22m');
  });

  it('honours a colourless chalk (NO_COLOR)', () => {
    expect(painter(new Chalk({ level: 0 }), 'red')('x')).toBe('x');
  });
});
