// `swarm status`'s total line (cli/output/status.ts): a `$` figure only when something has a list
// price; a team whose spend is all unpriced (the demo's stand-in model) shows tokens only.
import { describe, expect, it } from 'vitest';
import { totalLabel } from '../../../src/cli/output/status.js';

describe('totalLabel', () => {
  it('prices what has a price, counts the unpriced members, and shows no $ when nothing is priced', () => {
    expect(totalLabel({ inputTokens: 41_000, outputTokens: 6200, costUsd: 0.41, unpricedMembers: 0 })).toBe('tokens 41k/6.2k · $0.41');
    expect(totalLabel({ inputTokens: 41_000, outputTokens: 6200, costUsd: 0.41, unpricedMembers: 1 })).toBe('tokens 41k/6.2k · $0.41 + tokens of 1 unpriced member');
    expect(totalLabel({ inputTokens: 41_000, outputTokens: 6200, costUsd: 0, unpricedMembers: 2 })).toBe('tokens 41k/6.2k · 2 unpriced members');
    expect(totalLabel({ inputTokens: 0, outputTokens: 0, costUsd: 0, unpricedMembers: 0 })).toBe('tokens 0/0 · $0');
  });
});
