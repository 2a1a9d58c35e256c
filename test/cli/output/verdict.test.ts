// A verifier's verdict as a line (SPEC §10): `verdict: PASS (verifier)` for the headless run,
// highlighted in the console.
import { describe, expect, it } from 'vitest';
import { verdictLine } from '../../../src/cli/output/verdict.js';

describe('verdict line', () => {
  it('plain for the headless run, marked for the console', () => {
    expect(verdictLine('PASS', 'verifier')).toBe('verdict: PASS (verifier)');
    expect(verdictLine('FAIL', 'verifier', true)).toContain('★ verdict: FAIL (verifier)');
  });
});
