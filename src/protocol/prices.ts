// The list price of each Claude model, declared once for the runtime's status file, `swarm status`
// and the agent lead's `--budget-usd` (docs/protocol.md#spend-and-budget: tokens × the model's list price). An estimate: the
// Messages API's list prices in USD per million tokens, checked against Anthropic's pricing and
// model pages on PRICES_CHECKED. Cache reads cost 10 % of input unless a row says otherwise,
// cache writes 125 % (the 5-minute cache, which is what the runtime asks for).
//
// A model id is matched by family and version, in either spelling (`claude-opus-4-5-20251101`,
// `claude-3-5-haiku-20241022`, Bedrock's `anthropic.claude-…-v1:0`, a `[1m]` suffix). A model no
// row names has no price: it counts tokens only (`priceOf` answers undefined), never a guess.

/** The day the table was last compared with Anthropic's published prices. */
export const PRICES_CHECKED = '2026-12-04';

export interface Price {
  /** USD per million uncached input tokens. */
  input: number;
  /** USD per million output tokens. */
  output: number;
  /** Cache reads as a fraction of `input`; default CACHE_READ. */
  cacheRead?: number;
  /** A request whose whole prompt is over `tokens` costs `factor` × every rate (Haiku 5.5). */
  longPrompt?: { tokens: number; factor: number };
}

export const CACHE_READ = 0.1;
export const CACHE_WRITE = 1.25;

/** Rows by model key: family and version as the API spells them (`opus-4-5`, `haiku-3`). */
const PRICE_TABLE: readonly { models: readonly string[]; price: Price }[] = [
  { models: ['fable-5-2', 'mythos-5-2'], price: { input: 8, output: 40, cacheRead: 0.025 } },
  { models: ['fable-5-1', 'mythos-5-1'], price: { input: 10, output: 50, cacheRead: 0.025 } },
  { models: ['fable-5', 'mythos-5'], price: { input: 10, output: 50 } },
  { models: ['opus-5-5'], price: { input: 4, output: 20, cacheRead: 0.05 } },
  { models: ['opus-5', 'opus-4-8', 'opus-4-7', 'opus-4-6', 'opus-4-5'], price: { input: 5, output: 25 } },
  { models: ['opus-4-1', 'opus-4', 'opus-3'], price: { input: 15, output: 75 } },
  { models: ['sonnet-5-5'], price: { input: 2, output: 10, cacheRead: 0.05 } },
  { models: ['sonnet-5'], price: { input: 2, output: 10 } },
  { models: ['sonnet-4-6', 'sonnet-4-5', 'sonnet-4', 'sonnet-3-7', 'sonnet-3-5'], price: { input: 3, output: 15 } },
  { models: ['haiku-5-5'], price: { input: 0.1, output: 0.5, longPrompt: { tokens: 100_000, factor: 5 } } },
  { models: ['haiku-4-5'], price: { input: 1, output: 5 } },
  { models: ['haiku-3-5'], price: { input: 0.8, output: 4 } },
  { models: ['haiku-3'], price: { input: 0.25, output: 1.25 } },
];

const BY_KEY: ReadonlyMap<string, Price> = new Map(PRICE_TABLE.flatMap((r) => r.models.map((m) => [m, r.price] as const)));

const FAMILIES = 'opus|sonnet|haiku|fable|mythos';
// `opus-4-5-20251101`, `opus-4-20250514` (a date is not a minor version), `sonnet-5`.
const NEW_STYLE = new RegExp(`(?:^|[^a-z])(${FAMILIES})-(\\d{1,2})(?:-(\\d{1,2}))?(?!\\d)`);
// `claude-3-5-haiku-20241022`, `claude-3-opus-20240229`.
const OLD_STYLE = new RegExp(`claude-(\\d{1,2})(?:-(\\d{1,2}))?-(${FAMILIES})(?![a-z])`);

/** `claude-opus-4-5-20251101` → `opus-4-5`; undefined when the id names no Claude family and version. */
export function modelKey(model: string): string | undefined {
  const id = model.toLowerCase();
  const n = NEW_STYLE.exec(id);
  if (n) return [n[1], n[2], n[3]].filter((x) => x !== undefined).join('-');
  const o = OLD_STYLE.exec(id);
  if (o) return [o[3], o[1], o[2]].filter((x) => x !== undefined).join('-');
  return undefined;
}

/** The model's list price, or undefined for a model the table does not name (count its tokens only). */
export function priceOf(model: string): Price | undefined {
  const key = modelKey(model);
  return key === undefined ? undefined : BY_KEY.get(key);
}

/** The tokens of one model request, as the API's usage reports them. */
export interface RequestTokens {
  /** Uncached input tokens. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** The list price in USD of one request. */
export function requestCostUsd(p: Price, t: RequestTokens): number {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  const factor = p.longPrompt !== undefined && prompt > p.longPrompt.tokens ? p.longPrompt.factor : 1;
  const inputUsd = (t.input + t.cacheRead * (p.cacheRead ?? CACHE_READ) + t.cacheWrite * CACHE_WRITE) * p.input;
  return (factor * (inputUsd + t.output * p.output)) / 1e6;
}
