// Token counts and a cost estimate per model step. "Input tokens" is the latest step's whole prompt
// (uncached + cache reads + cache writes: how full the context is); output tokens are summed.
// The cost is the step's tokens × the model's list price (protocol/prices: one table, with the date
// it was checked); a model the table does not name has no cost (`costUsd` undefined): its tokens
// are counted, never priced by a guess.
import type { Usage } from '@anthropic-ai/sdk/resources/messages';
import { priceOf, requestCostUsd } from '../protocol/prices.js';

// The agent lead's budget prices its model from here too.
export { PRICES_CHECKED, priceOf, type Price } from '../protocol/prices.js';

export interface StepUsage {
  /** The whole prompt of this step. */
  promptTokens: number;
  outputTokens: number;
  /** undefined: the model has no list price in the table. */
  costUsd: number | undefined;
}

export function stepUsage(model: string, u: Pick<Usage, 'input_tokens' | 'output_tokens'> & Partial<Usage>): StepUsage {
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const cacheWrite = u.cache_creation_input_tokens ?? 0;
  const price = priceOf(model);
  const costUsd = price === undefined ? undefined : requestCostUsd(price, { input: u.input_tokens, cacheRead, cacheWrite, output: u.output_tokens });
  return { promptTokens: u.input_tokens + cacheRead + cacheWrite, outputTokens: u.output_tokens, costUsd };
}
