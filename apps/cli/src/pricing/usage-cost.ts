/**
 * The cost of a model call's token usage at a model's price: fresh input at
 * the input price, cache reads at the cached-input price, cache writes at
 * the cache-write price (the input price when the model has none), output
 * at the output price.
 */
import type { TokenUsage } from "@kosong/core";
import type { ModelPrice } from "./model-prices.js";

/** USD that `usage` costs at `price` (per million tokens). */
export function usageCost(usage: TokenUsage, price: ModelPrice): number {
  const micro =
    usage.input_other * price.input + usage.input_cache_read * price.cachedInput + usage.input_cache_creation * (price.cacheWrite ?? price.input) + usage.output * price.output;
  return micro / 1_000_000;
}

/** `usd` as `$0.0042` below a dollar, `$1.23` from there. */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}
