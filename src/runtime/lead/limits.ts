// The agent lead's limits (docs/protocol.md#agent-lead): --max-teammates (on the roster at once), --max-turns (the
// lead's model steps), and the team's budget, --budget-usd (the team's cost: tokens × list price,
// runtime/usage.ts) and --budget-tokens (the team's tokens: for models the price table does not
// know). The budget binds every member: the run records it in config.json and every teammate checks
// it before each of its own steps (team/spend.ts, runtime/budget-gate.ts); the lead checks its
// limits before every step of its own and before every spawn, by the same rule
// (protocol/budget.ts). When one is reached the person decides: continue (that limit grows by its
// first size again; a budget in config.json, so waiting teammates go on) or stop (the run ends,
// saying which limit).
import { describeBudget, type BudgetKind } from '../../protocol/budget.js';
import { SwarmError } from '../../protocol/errors.js';
import type { BudgetLimits, BudgetState } from '../../team/spend.js';

export interface LeadLimitSettings {
  maxTeammates: number;
  maxTurns?: number | undefined;
  budgetUsd?: number | undefined;
  budgetTokens?: number | undefined;
}

export type LimitKind = 'max-turns' | BudgetKind;

export interface LimitHit {
  kind: LimitKind;
  /** One line: what was reached, e.g. "$0.52 spent of --budget-usd 0.5". */
  why: string;
}

/** Thrown out of the lead's loop when the person (or a headless run) stops at a limit. */
export class LimitReached extends SwarmError {
  constructor(readonly hit: LimitHit) {
    super('limit', `over a limit: ${hit.why}`);
  }
}

export class LeadLimits {
  private turns = 0;
  private maxTurns: number | undefined;

  constructor(private readonly s: LeadLimitSettings) {
    this.maxTurns = s.maxTurns;
  }

  get maxTeammates(): number {
    return this.s.maxTeammates;
  }

  /** The budget the run starts with (what setTeamBudget records). */
  get budget(): BudgetLimits {
    return { usd: this.s.budgetUsd, tokens: this.s.budgetTokens };
  }

  /** Count one model step of the lead. */
  step(): void {
    this.turns += 1;
  }

  /** The first limit reached: the lead's steps, then the team's budget as just read. */
  reached(budget: Pick<BudgetState, 'hit'>): LimitHit | undefined {
    if (this.maxTurns !== undefined && this.turns >= this.maxTurns) {
      return { kind: 'max-turns', why: `the lead took ${this.turns} model steps (--max-turns ${this.maxTurns})` };
    }
    return budget.hit;
  }

  /** The person chose to go on at --max-turns: it grows by its first size. */
  extendTurns(): void {
    if (this.maxTurns !== undefined) this.maxTurns += this.s.maxTurns ?? 0;
  }

  /** How much a budget grows when the person goes on at it: its first size. */
  growth(kind: BudgetKind): number {
    return (kind === 'budget-usd' ? this.s.budgetUsd : this.s.budgetTokens) ?? 0;
  }

  /** The limits in force, one line each, for the lead's system prompt. */
  describe(budget: Pick<BudgetState, 'budget' | 'spent'>): string[] {
    const steps = this.maxTurns === undefined ? [] : [`model steps: ${this.turns} of ${this.maxTurns}`];
    return [...steps, ...describeBudget(budget.budget, budget.spent)];
  }
}
