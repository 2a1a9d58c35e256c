// The console's slow tick (src/cli/console/sources.ts tickAtMost): every minMs while a tick is
// cheap; after a costly one, a pause of at least its cost over the share, so a big team's status
// sweep never takes more than that share of the console's time; an abort ends it.
import { describe, expect, it } from 'vitest';
import { tickAtMost } from '../../../src/cli/console/sources.js';

describe('tickAtMost', () => {
  it('pauses at least minMs, and after a tick that took T, at least T / share', async () => {
    const stop = new AbortController();
    const starts: number[] = [];
    const ends: number[] = [];
    await tickAtMost(
      10,
      0.5,
      async () => {
        starts.push(performance.now());
        await new Promise((r) => setTimeout(r, starts.length === 1 ? 60 : 1)); // the first tick is costly
        ends.push(performance.now());
        if (starts.length === 3) stop.abort();
      },
      stop.signal,
    );
    expect(starts).toHaveLength(3);
    expect(starts[1]! - ends[0]!).toBeGreaterThanOrEqual(115); // ≥ 60 ms / 0.5, less timer slack
    expect(starts[2]! - ends[1]!).toBeGreaterThanOrEqual(9);
  });
});
