// formatAge: the one age format of status, doctor and the console's permission line.
import { describe, expect, it } from 'vitest';
import { formatAge } from '../../../src/cli/output/age.js';

describe('formatAge', () => {
  it('counts whole seconds below a minute, 0s below one second', () => {
    expect(formatAge(0)).toBe('0s');
    expect(formatAge(850)).toBe('0s');
    expect(formatAge(1_000)).toBe('1s');
    expect(formatAge(2_999)).toBe('2s');
    expect(formatAge(59_999)).toBe('59s');
  });

  it('shows the largest unit only, rounded down', () => {
    expect(formatAge(60_000)).toBe('1m');
    expect(formatAge(185_000)).toBe('3m');
    expect(formatAge(3_599_999)).toBe('59m');
    expect(formatAge(2 * 3_600_000 + 7 * 60_000)).toBe('2h');
    expect(formatAge(86_400_000 * 5 + 3_600_000 * 23)).toBe('5d');
    expect(formatAge(86_400_000 * 400)).toBe('1y');
  });

  it('reads a clock skew (negative) or a missing time (NaN) as 0s rather than throwing', () => {
    expect(formatAge(-5_000)).toBe('0s');
    expect(formatAge(Number.NaN)).toBe('0s');
  });
});
