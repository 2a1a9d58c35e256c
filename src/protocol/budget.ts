// The team's budget (docs/protocol.md#spend-and-budget: `--budget-usd`, `--budget-tokens`) and the one rule that says when it
// is reached, for every member: the agent lead before each of its steps and each spawn, every
// swarm-runtime teammate before each of its model steps. The run records the budget in
// config.json (`swarm.budget`, team/spend.ts writes it under the config lock) so every member
// process reads the same one; the team's spend is summed by team/spend.ts. Pure: no I/O.
//
// A budget counts what the team spent since it was set: `spentBefore` is the team's spend at that
// moment (a `swarm run --team` on a team that already worked starts from zero). Reached means
// spent >= budget: at the limit, not only past it.
import * as z from 'zod';

export const TeamBudgetSchema = z.looseObject({
  /** USD: every member's tokens × its model's list price (protocol/prices). */
  usd: z.number().optional(),
  /** Tokens: every step's whole prompt plus its output, summed over the members. */
  tokens: z.number().optional(),
  /** The team's spend when the budget was set; the budget counts what comes after. */
  spentBefore: z.looseObject({ costUsd: z.number(), tokens: z.number() }).default({ costUsd: 0, tokens: 0 }),
});
export type TeamBudget = z.infer<typeof TeamBudgetSchema>;

/** What the team has spent (all of it, or since the budget was set). */
export interface Spend {
  costUsd: number;
  tokens: number;
  /** Members whose model has no price: their tokens count, their cost does not. */
  unpriced: string[];
}

export type BudgetKind = 'budget-usd' | 'budget-tokens';

export interface BudgetHit {
  kind: BudgetKind;
  /** One line: what was reached, e.g. "$0.52 spent of --budget-usd 0.5". */
  why: string;
}

function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

/** What the team spent since the budget was set (`total`: everything it has spent). */
export function spentSince(budget: TeamBudget | undefined, total: Spend): Spend {
  const before = budget?.spentBefore ?? { costUsd: 0, tokens: 0 };
  return { costUsd: Math.max(0, total.costUsd - before.costUsd), tokens: Math.max(0, total.tokens - before.tokens), unpriced: total.unpriced };
}

/** The budget reached with `spent` (since it was set), if any: USD first, then tokens. */
export function budgetReached(budget: TeamBudget | undefined, spent: Spend): BudgetHit | undefined {
  if (budget?.usd !== undefined && spent.costUsd >= budget.usd) {
    return { kind: 'budget-usd', why: `${usd(spent.costUsd)} spent of --budget-usd ${budget.usd}` };
  }
  if (budget?.tokens !== undefined && spent.tokens >= budget.tokens) {
    return { kind: 'budget-tokens', why: `${spent.tokens} tokens used of --budget-tokens ${budget.tokens}` };
  }
  return undefined;
}

/** The budget in force, one line each, with what the team spent of it (the lead's system prompt). */
export function describeBudget(budget: TeamBudget | undefined, spent: Spend): string[] {
  const out: string[] = [];
  if (budget?.usd !== undefined) out.push(`budget: ${usd(budget.usd)} (the team has spent ${usd(spent.costUsd)})`);
  if (budget?.tokens !== undefined) out.push(`token budget: ${budget.tokens} (the team has used ${spent.tokens})`);
  return out;
}

/**
 * teams/<team>/spent.json: what members that left had spent, so it still counts once their status
 * file is gone. One entry per member process (`<agentId>@<startedAt>`), its last figures.
 */
export const SpentLedgerSchema = z.looseObject({
  left: z.record(z.string(), z.looseObject({ name: z.string(), tokens: z.number(), costUsd: z.number().optional() })).default({}),
});
export type SpentLedger = z.infer<typeof SpentLedgerSchema>;
