// The teammate's pane view takes the colour level the CLI decided (cli/output/color.ts): the real
// teammate process, its pane a pipe, with FORCE_COLOR and then FORCE_COLOR plus NO_COLOR.
import { describe, expect, it } from 'vitest';
import { setupRuntime, waitFor } from '../support/runtime-harness.js';

describe('the teammate pane view', () => {
  it.each([
    ['FORCE_COLOR=1', true, { NO_COLOR: '', FORCE_COLOR: '1' }],
    ['FORCE_COLOR=1 NO_COLOR=1', false, { NO_COLOR: '1', FORCE_COLOR: '1' }],
  ])('%s: coloured banner %s', async (_what, coloured, env) => {
    const e = await setupRuntime({ turns: [] });
    const t = e.start([], env);
    await waitFor(() => t.output().includes('w1'), 15_000, 'the banner');
    const banner = t.output().split('\n').find((l) => l.includes('w1')) ?? '';
    expect(banner.includes('\u001b[')).toBe(coloured);
    expect(t.output()).not.toContain("'NO_COLOR' env is ignored");
  });
});
