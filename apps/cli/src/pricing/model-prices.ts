/**
 * What models cost, as data: USD per million tokens for input, input read
 * from the provider's prompt cache, output and (where the provider charges
 * for it) input written to the cache. The status footer turns a session's
 * token usage into a cost with it; a model missing here has no cost shown,
 * and the config file's `[prices]` table sets the price of any model.
 *
 * Sources, read on 2026-11-25 through stored copies of the pages:
 * - Anthropic: platform.claude.com/docs/en/about-claude/pricing ("Model
 *   pricing": base input, 5-minute cache writes, cache hits, output); Claude
 *   Sonnet 5 and Opus 5 from GitHub Copilot's per-token table
 *   (github/docs data/tables/copilot/models-and-pricing.yml), which lists the
 *   same figures as Anthropic's page for the models both name.
 * - OpenAI: gpt-4o, gpt-4o-mini and o1 as openai.com/api/pricing lists them
 *   (quoted by the openai-models crate); gpt-4.1 and gpt-5-mini from GitHub
 *   Copilot's per-token table; o4-mini from its launch prices
 *   (openai.com/index/introducing-o3-and-o4-mini, quoted in Roo Code's model
 *   table); gpt-5 input and output from OpenAI's pricing page as quoted by
 *   deploybase.ai (March 2026), its cached input at the GPT-5 family's 90 %
 *   discount (the rate Copilot's table shows for gpt-5-mini).
 * - Moonshot AI: kimi-k3 from platform.kimi.ai/docs/pricing/chat-k3.
 * Models whose current price could not be confirmed (o3, the retired Kimi K2
 * series, DeepSeek's time-of-day prices) are left out on purpose.
 */

/** A model's price in USD per million tokens. */
export interface ModelPrice {
  /** Input tokens not read from (nor written to) a cache. */
  input: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInput: number;
  output: number;
  /** Input tokens written to the cache, where the provider charges extra for them (default: `input`). */
  cacheWrite?: number;
}

const claude = (input: number, cacheWrite: number, cachedInput: number, output: number): ModelPrice => ({ input, cacheWrite, cachedInput, output });
const openai = (input: number, cachedInput: number, output: number): ModelPrice => ({ input, cachedInput, output });

/**
 * Prices by model name. A name matches its own entry and its dated snapshots
 * (`claude-sonnet-4-20250514`, `gpt-4o-2024-08-06`) or `-latest` alias,
 * never another model that merely starts the same (`gpt-5-mini` is not `gpt-5`).
 */
export const modelPrices: Readonly<Record<string, ModelPrice>> = Object.freeze({
  // Anthropic
  "claude-opus-5": claude(5, 6.25, 0.5, 25),
  "claude-opus-4-8": claude(5, 6.25, 0.5, 25),
  "claude-opus-4-7": claude(5, 6.25, 0.5, 25),
  "claude-opus-4-6": claude(5, 6.25, 0.5, 25),
  "claude-opus-4-5": claude(5, 6.25, 0.5, 25),
  "claude-opus-4-1": claude(15, 18.75, 1.5, 75),
  "claude-opus-4": claude(15, 18.75, 1.5, 75),
  "claude-opus-4-0": claude(15, 18.75, 1.5, 75),
  "claude-3-opus": claude(15, 18.75, 1.5, 75),
  "claude-sonnet-5": claude(2, 2.5, 0.2, 10),
  "claude-sonnet-4-6": claude(3, 3.75, 0.3, 15),
  "claude-sonnet-4-5": claude(3, 3.75, 0.3, 15),
  "claude-sonnet-4": claude(3, 3.75, 0.3, 15),
  "claude-sonnet-4-0": claude(3, 3.75, 0.3, 15),
  "claude-3-7-sonnet": claude(3, 3.75, 0.3, 15),
  "claude-haiku-4-5": claude(1, 1.25, 0.1, 5),
  "claude-3-5-haiku": claude(0.8, 1, 0.08, 4),
  "claude-3-haiku": claude(0.25, 0.3, 0.03, 1.25),
  // OpenAI
  "gpt-5": openai(1.25, 0.125, 10),
  "gpt-5-mini": openai(0.25, 0.025, 2),
  "gpt-4.1": openai(2, 0.5, 8),
  "gpt-4o": openai(2.5, 1.25, 10),
  "gpt-4o-mini": openai(0.15, 0.075, 0.6),
  o1: openai(15, 7.5, 60),
  "o4-mini": openai(1.1, 0.275, 4.4),
  // Moonshot AI
  "kimi-k3": openai(3, 0.3, 15),
});

/** A snapshot or alias suffix after a model's name: `-20250514`, `-2024-08-06`, `-latest`. */
const snapshot = /^-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/**
 * The price of `model`: from `overrides` (the config file's, by the same
 * matching) when they name it, else from `table`; null when neither does.
 * A router's vendor prefix (`anthropic/claude-sonnet-4`) is ignored, and
 * case does not matter.
 */
export function priceOf(model: string, overrides: Readonly<Record<string, ModelPrice>> = {}, table: Readonly<Record<string, ModelPrice>> = modelPrices): ModelPrice | null {
  return lookup(model, overrides) ?? lookup(model, table);
}

function lookup(model: string, table: Readonly<Record<string, ModelPrice>>): ModelPrice | null {
  const lower = model.toLowerCase();
  for (const name of [lower, lower.slice(lower.lastIndexOf("/") + 1)]) {
    for (const [key, price] of Object.entries(table)) {
      const k = key.toLowerCase();
      if (name === k || (name.startsWith(k) && snapshot.test(name.slice(k.length)))) return price;
    }
  }
  return null;
}
