// The team's budget rule (protocol/budget.ts), pure: reached at the budget (not only past it), USD
// before tokens, counted from what the team had spent when the budget was set.
import { describe, expect, it } from 'vitest';
import { budgetReached, describeBudget, spentSince, TeamBudgetSchema } from '../../src/protocol/budget.js';

const spent = (costUsd: number, tokens: number, unpriced: string[] = []) => ({ costUsd, tokens, unpriced });
const budget = (b: { usd?: number; tokens?: number; spentBefore?: { costUsd: number; tokens: number } }) => TeamBudgetSchema.parse(b);

describe('budgetReached', () => {
  it('is reached at the budget, not only past it; nothing binds without a budget', () => {
    const usd = budget({ usd: 1 });
    expect(budgetReached(usd, spent(0.99, 10 ** 9))).toBeUndefined();
    expect(budgetReached(usd, spent(1, 0))).toEqual({ kind: 'budget-usd', why: '$1.00 spent of --budget-usd 1' });
    expect(budgetReached(usd, spent(20.03, 0))).toEqual({ kind: 'budget-usd', why: '$20.03 spent of --budget-usd 1' });
    const tokens = budget({ tokens: 1000 });
    expect(budgetReached(tokens, spent(500, 999))).toBeUndefined();
    expect(budgetReached(tokens, spent(0, 1000))).toEqual({ kind: 'budget-tokens', why: '1000 tokens used of --budget-tokens 1000' });
    expect(budgetReached(undefined, spent(10 ** 6, 10 ** 9))).toBeUndefined();
    expect(budgetReached(budget({}), spent(10 ** 6, 10 ** 9))).toBeUndefined();
  });

  it('names USD first when both are reached', () => {
    expect(budgetReached(budget({ usd: 0.5, tokens: 100 }), spent(0.5, 100))?.kind).toBe('budget-usd');
    expect(budgetReached(budget({ usd: 0.5, tokens: 100 }), spent(0.4, 100))?.kind).toBe('budget-tokens');
  });
});

describe('spentSince', () => {
  it("counts from the team's spend when the budget was set (a missing base is zero), never below zero", () => {
    const b = budget({ usd: 1, spentBefore: { costUsd: 3, tokens: 3000 } });
    expect(spentSince(b, spent(3.5, 4000, ['w2']))).toEqual(spent(0.5, 1000, ['w2']));
    expect(budgetReached(b, spentSince(b, spent(3.99, 0)))).toBeUndefined();
    expect(budgetReached(b, spentSince(b, spent(4, 0)))?.why).toBe('$1.00 spent of --budget-usd 1');
    expect(spentSince(b, spent(1, 10))).toEqual(spent(0, 0));
    expect(spentSince(undefined, spent(2, 20))).toEqual(spent(2, 20));
    expect(budget({ usd: 1 }).spentBefore).toEqual({ costUsd: 0, tokens: 0 });
  });
});

describe('describeBudget', () => {
  it("one line per budget in force, with what the team spent of it", () => {
    expect(describeBudget(budget({ usd: 2, tokens: 5000 }), spent(0.25, 1200))).toEqual(['budget: $2.00 (the team has spent $0.25)', 'token budget: 5000 (the team has used 1200)']);
    expect(describeBudget(undefined, spent(1, 1))).toEqual([]);
  });
});
