// Token counts and a cost estimate per model step. "Input tokens" is the latest step's whole prompt
// (uncached + cache reads + cache writes: how full the context is); output tokens are summed.
// Prices are list prices per million tokens by model family, an estimate only (unknown models are
// priced as Sonnet); cache reads cost 10 % of input, cache writes 125 %.
import type { Usage } from '@anthropic-ai/sdk/resources/messages';

interface Price {
  input: number;
  output: number;
}

const PRICES: readonly [RegExp, Price][] = [
  [/opus-4-[01]|opus-3/, { input: 15, output: 75 }],
  [/opus/, { input: 5, output: 25 }],
  [/haiku-3/, { input: 0.25, output: 1.25 }],
  [/haiku/, { input: 1, output: 5 }],
  [/sonnet/, { input: 3, output: 15 }],
];
const DEFAULT_PRICE: Price = { input: 3, output: 15 };

export function priceOf(model: string): Price {
  return PRICES.find(([re]) => re.test(model))?.[1] ?? DEFAULT_PRICE;
}

export interface StepUsage {
  /** The whole prompt of this step. */
  promptTokens: number;
  outputTokens: number;
  costUsd: number;
}

export function stepUsage(model: string, u: Pick<Usage, 'input_tokens' | 'output_tokens'> & Partial<Usage>): StepUsage {
  const read = u.cache_read_input_tokens ?? 0;
  const write = u.cache_creation_input_tokens ?? 0;
  const p = priceOf(model);
  const costUsd = (u.input_tokens * p.input + read * p.input * 0.1 + write * p.input * 1.25 + u.output_tokens * p.output) / 1e6;
  return { promptTokens: u.input_tokens + read + write, outputTokens: u.output_tokens, costUsd };
}
