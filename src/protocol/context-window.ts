// How much conversation a model holds, for compaction (docs/protocol.md#transcripts-and-resume): each known model's context window
// in tokens, and the default point at which the runtime compacts (80 % of it). A `[1m]` suffix (the
// 1M-token context beta) means 1,000,000; a model no row names gets the conservative DEFAULT_WINDOW.
// Models are matched by the same family-and-version key as the price table (prices.ts).
import { modelKey } from './prices.js';

/** Tokens assumed for a model this table does not name. */
export const DEFAULT_WINDOW = 200_000;
/** The default compaction point as a fraction of the window (SWARM_COMPACT_AT overrides it). */
export const COMPACT_FRACTION = 0.8;
const ONE_MILLION = 1_000_000;

/** Rows by model key (family and version, as in prices.ts). */
const WINDOW_TABLE: readonly { models: readonly string[]; tokens: number }[] = [
  { models: ['opus-4-6', 'opus-4-5', 'opus-4-1', 'opus-4', 'opus-3'], tokens: 200_000 },
  { models: ['sonnet-4-6', 'sonnet-4-5', 'sonnet-4', 'sonnet-3-7', 'sonnet-3-5'], tokens: 200_000 },
  { models: ['haiku-4-5', 'haiku-3-5', 'haiku-3'], tokens: 200_000 },
];

const BY_KEY: ReadonlyMap<string, number> = new Map(WINDOW_TABLE.flatMap((r) => r.models.map((m) => [m, r.tokens] as const)));

/** The model's context window in tokens (DEFAULT_WINDOW when unknown). */
export function contextWindow(model: string): number {
  if (/\[1m\]$/i.test(model.trim())) return ONE_MILLION;
  const key = modelKey(model);
  return (key === undefined ? undefined : BY_KEY.get(key)) ?? DEFAULT_WINDOW;
}

/** Input tokens past which the conversation is compacted by default: COMPACT_FRACTION of the window. */
export function defaultCompactAt(model: string): number {
  return Math.floor(contextWindow(model) * COMPACT_FRACTION);
}
