// Member colours (SPEC §3.1): round-robin, leader first, with the tmux names.
import { describe, expect, it } from 'vitest';
import { colorForIndex, COLORS, isColorName, nextColor, TMUX_COLORS } from '../../src/protocol/index.js';

describe('colours', () => {
  it('the palette is in SPEC order, leader (index 0) red', () => {
    expect(COLORS).toEqual(['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan']);
    expect(colorForIndex(0)).toBe('red');
  });

  it('round-robins by roster index', () => {
    expect(Array.from({ length: 17 }, (_, i) => colorForIndex(i))).toEqual([...COLORS, ...COLORS, 'red']);
  });

  it('nextColor: the leader gets red, each new member the next colour, then wraps', () => {
    const used: string[] = [];
    for (let i = 0; i < 10; i++) used.push(nextColor(used));
    expect(used).toEqual([...COLORS, 'red', 'blue']);
  });

  it('nextColor reuses a colour freed by a removed member', () => {
    expect(nextColor(['red', 'blue', undefined, 'yellow'])).toBe('green');
  });

  it('tmux names', () => {
    expect(COLORS.map((c) => TMUX_COLORS[c])).toEqual(['red', 'blue', 'green', 'yellow', 'magenta', 'colour208', 'colour205', 'cyan']);
    expect(isColorName('purple')).toBe(true);
    expect(isColorName('magenta')).toBe(false);
    expect(isColorName(undefined)).toBe(false);
  });
});
