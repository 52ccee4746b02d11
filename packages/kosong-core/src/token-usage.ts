/**
 * Token usage of one generation, in kosong's four counters. Derived totals
 * are computed by {@link inputTokens} and {@link totalTokens}.
 */
export interface TokenUsage {
  /** Input tokens that were neither read from nor written to a prompt cache. */
  input_other: number;
  /** All output tokens (reasoning included). */
  output: number;
  /** Input tokens read from a prompt cache. */
  input_cache_read: number;
  /** Input tokens written to a prompt cache (Anthropic reports these). */
  input_cache_creation: number;
}

/** A usage record; missing counters are 0. */
export function tokenUsage(usage: Partial<TokenUsage> = {}): TokenUsage {
  return {
    input_other: usage.input_other ?? 0,
    output: usage.output ?? 0,
    input_cache_read: usage.input_cache_read ?? 0,
    input_cache_creation: usage.input_cache_creation ?? 0,
  };
}

/**
 * `usage` when every counter is a count (a non-negative safe integer), else
 * null: a server's usage is hostile input, and a negative, fractional or
 * astronomically large count is taken as no usage reported rather than
 * carried into sums and the saved context.
 */
export function countedTokenUsage(usage: TokenUsage | null | undefined): TokenUsage | null {
  if (!usage) return null;
  const counts = [usage.input_other, usage.output, usage.input_cache_read, usage.input_cache_creation];
  return counts.every((count) => Number.isSafeInteger(count) && count >= 0) ? usage : null;
}

/** All input tokens: uncached + cache read + cache creation. */
export function inputTokens(usage: TokenUsage): number {
  return usage.input_other + usage.input_cache_read + usage.input_cache_creation;
}

/** Input plus output tokens. */
export function totalTokens(usage: TokenUsage): number {
  return inputTokens(usage) + usage.output;
}

/** The counter-wise sum of several usages (null and undefined entries are skipped). */
export function sumTokenUsage(...usages: Array<TokenUsage | null | undefined>): TokenUsage {
  const sum = tokenUsage();
  for (const u of usages) {
    if (!u) continue;
    sum.input_other += u.input_other;
    sum.output += u.output;
    sum.input_cache_read += u.input_cache_read;
    sum.input_cache_creation += u.input_cache_creation;
  }
  return sum;
}
