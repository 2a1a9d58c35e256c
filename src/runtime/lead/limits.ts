// The agent lead's limits (SPEC §9): --max-teammates (on the roster at once), --max-turns (the
// lead's model steps), --budget-usd (the team's cost: tokens × list price, runtime/usage.ts) and
// --budget-tokens (the team's tokens: for models the price table does not know). Checked before
// every step of the lead and before every spawn. When one is reached the person decides: continue
// (that limit grows by its first size again) or stop (the run ends, saying which limit).
import { SwarmError } from '../../protocol/errors.js';
import type { Spend } from './team-state.js';

export interface LeadLimitSettings {
  maxTeammates: number;
  maxTurns?: number | undefined;
  budgetUsd?: number | undefined;
  budgetTokens?: number | undefined;
}

export type LimitKind = 'max-turns' | 'budget-usd' | 'budget-tokens';

export interface LimitHit {
  kind: LimitKind;
  /** One line: what was reached, e.g. "$0.52 spent of --budget-usd 0.50". */
  why: string;
}

/** Thrown out of the lead's loop when the person (or a headless run) stops at a limit. */
export class LimitReached extends SwarmError {
  constructor(readonly hit: LimitHit) {
    super('limit', `over a limit: ${hit.why}`);
  }
}

function usd(n: number): string {
  return `$${n.toFixed(2)}`;
}

export class LeadLimits {
  private turns = 0;
  private maxTurns: number | undefined;
  private budgetUsd: number | undefined;
  private budgetTokens: number | undefined;

  constructor(private readonly s: LeadLimitSettings) {
    this.maxTurns = s.maxTurns;
    this.budgetUsd = s.budgetUsd;
    this.budgetTokens = s.budgetTokens;
  }

  get maxTeammates(): number {
    return this.s.maxTeammates;
  }

  /** Count one model step of the lead. */
  step(): void {
    this.turns += 1;
  }

  /** The first limit reached with `spend` (and the steps so far), if any. */
  reached(spend: Spend): LimitHit | undefined {
    if (this.maxTurns !== undefined && this.turns >= this.maxTurns) {
      return { kind: 'max-turns', why: `the lead took ${this.turns} model steps (--max-turns ${this.maxTurns})` };
    }
    if (this.budgetUsd !== undefined && spend.costUsd >= this.budgetUsd) {
      return { kind: 'budget-usd', why: `${usd(spend.costUsd)} spent of --budget-usd ${this.budgetUsd}` };
    }
    if (this.budgetTokens !== undefined && spend.tokens >= this.budgetTokens) {
      return { kind: 'budget-tokens', why: `${spend.tokens} tokens used of --budget-tokens ${this.budgetTokens}` };
    }
    return undefined;
  }

  /** The person chose to go on: the limit reached grows by its first size. */
  extend(kind: LimitKind): void {
    if (kind === 'max-turns' && this.maxTurns !== undefined) this.maxTurns += this.s.maxTurns ?? 0;
    if (kind === 'budget-usd' && this.budgetUsd !== undefined) this.budgetUsd += this.s.budgetUsd ?? 0;
    if (kind === 'budget-tokens' && this.budgetTokens !== undefined) this.budgetTokens += this.s.budgetTokens ?? 0;
  }

  /** The limits in force, one line each, for the lead's system prompt. */
  describe(spend: Spend): string[] {
    const out: string[] = [];
    if (this.maxTurns !== undefined) out.push(`model steps: ${this.turns} of ${this.maxTurns}`);
    if (this.budgetUsd !== undefined) out.push(`budget: ${usd(this.budgetUsd)} (the team has spent ${usd(spend.costUsd)})`);
    if (this.budgetTokens !== undefined) out.push(`token budget: ${this.budgetTokens} (the team has used ${spend.tokens})`);
    return out;
  }
}
