// The price table (protocol/prices): real model ids in every spelling find their list price, a model
// the table does not name has none (tokens only), and a request's cost follows the cache and
// long-prompt rules.
import { describe, expect, it } from 'vitest';
import { modelKey, priceOf, PRICES_CHECKED, requestCostUsd } from '../../src/protocol/prices.js';

const io = (model: string): [number, number] | undefined => {
  const p = priceOf(model);
  return p === undefined ? undefined : [p.input, p.output];
};

describe('priceOf', () => {
  it('prices real model ids: aliases, dated snapshots, old-style names, Bedrock and Vertex ids', () => {
    expect(io('claude-opus-4-5')).toEqual([5, 25]);
    expect(io('claude-opus-4-5-20251101')).toEqual([5, 25]);
    expect(io('claude-sonnet-4-5')).toEqual([3, 15]);
    expect(io('claude-sonnet-4-5-20250929')).toEqual([3, 15]);
    expect(io('anthropic.claude-sonnet-4-5-20250929-v1:0')).toEqual([3, 15]);
    expect(io('claude-sonnet-4-5@20250929')).toEqual([3, 15]);
    expect(io('claude-haiku-4-5')).toEqual([1, 5]);
    expect(io('claude-haiku-4-5-20251001')).toEqual([1, 5]);
    expect(io('claude-3-5-haiku-20241022')).toEqual([0.8, 4]);
    expect(io('claude-3-5-haiku-latest')).toEqual([0.8, 4]);
    expect(io('claude-3-haiku-20240307')).toEqual([0.25, 1.25]);
    expect(io('claude-3-opus-20240229')).toEqual([15, 75]);
    expect(io('claude-3-7-sonnet-latest')).toEqual([3, 15]);
    expect(io('claude-opus-4-20250514')).toEqual([15, 75]); // the date is not a minor version
    expect(io('claude-opus-4-1-20250805')).toEqual([15, 75]);
    expect(io('claude-sonnet-5-5')).toEqual([2, 10]);
    expect(io('claude-opus-5-5[1m]')).toEqual([4, 20]);
    expect(io('claude-fable-5-2')).toEqual([8, 40]);
    expect(io('claude-haiku-5-5')).toEqual([0.1, 0.5]);
  });

  it('has no price for a model the table does not name: no guess from the family', () => {
    expect(priceOf('claude-x')).toBeUndefined();
    expect(priceOf('claude-test-model')).toBeUndefined();
    expect(priceOf('claude-sonnet-6')).toBeUndefined();
    expect(priceOf('claude-opus-4-9')).toBeUndefined();
    expect(priceOf('gpt-6.1-sol')).toBeUndefined();
    expect(priceOf('')).toBeUndefined();
  });

  it('reads family and version from either spelling', () => {
    expect(modelKey('claude-opus-4-5-20251101')).toBe('opus-4-5');
    expect(modelKey('claude-opus-4-20250514')).toBe('opus-4');
    expect(modelKey('claude-3-5-haiku-20241022')).toBe('haiku-3-5');
    expect(modelKey('CLAUDE-SONNET-5')).toBe('sonnet-5');
    expect(modelKey('claude-x')).toBeUndefined();
  });

  it('says when it was checked', () => {
    expect(PRICES_CHECKED).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('requestCostUsd', () => {
  const none = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

  it('input and output at list price, cache reads at 10 % and writes at 125 % of input', () => {
    const sonnet = priceOf('claude-sonnet-4-5')!;
    expect(requestCostUsd(sonnet, { ...none, input: 1_000_000 })).toBeCloseTo(3, 9);
    expect(requestCostUsd(sonnet, { ...none, output: 1_000_000 })).toBeCloseTo(15, 9);
    expect(requestCostUsd(sonnet, { ...none, cacheRead: 1_000_000 })).toBeCloseTo(0.3, 9);
    expect(requestCostUsd(sonnet, { ...none, cacheWrite: 1_000_000 })).toBeCloseTo(3.75, 9);
  });

  it("a row's own cache-read rate", () => {
    expect(requestCostUsd(priceOf('claude-opus-5-5')!, { ...none, cacheRead: 1_000_000 })).toBeCloseTo(0.2, 9);
  });

  it('Haiku 5.5: a whole prompt over 100k tokens costs 5 × every rate, output included', () => {
    const haiku = priceOf('claude-haiku-5-5')!;
    expect(requestCostUsd(haiku, { ...none, input: 60_000, cacheRead: 40_000, output: 1000 })).toBeCloseTo((60_000 * 0.1 + 40_000 * 0.01 + 1000 * 0.5) / 1e6, 12);
    expect(requestCostUsd(haiku, { ...none, input: 60_001, cacheRead: 40_000, output: 1000 })).toBeCloseTo((5 * (60_001 * 0.1 + 40_000 * 0.01 + 1000 * 0.5)) / 1e6, 12);
  });
});
