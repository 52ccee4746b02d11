/**
 * Budgets in the provider's tokens. The soul's estimates count o200k_base
 * tokens, and real providers count more: prompt tokens ran about 10 % above
 * the o200k estimate on DeepSeek and 22-24 % above it on Claude (measured on
 * real sessions), so a strategy that fills 90-100 % of its budget by the
 * estimate exceeds it by the provider's own count. The provider's last
 * reported input tokens against the estimate of the same messages give the
 * ratio; a compaction budget in provider tokens is divided by it.
 */

/** Options of {@link calibratedTokenScale}. */
export interface TokenCalibrationOptions {
  /** The scale before any usage is known (default 1.25: room for Claude's +24 % over o200k). */
  unknownScale?: number;
  /** Added on top of a measured ratio, for drift between what was measured and what is compacted (default 0.06: the ratio varies between parts of a conversation, code more than prose). */
  margin?: number;
  /** The smallest ratio believed (default 0.8). */
  min?: number;
  /** The largest ratio believed (default 1.6: a short history measured with a long system prompt and tool schemas reads high). */
  max?: number;
}

/**
 * Provider tokens per estimated token: `providerTokens / estimatedTokens`
 * bounded to [`min`, `max`], times 1 + `margin`; `unknownScale` when either
 * count is missing (not a positive finite number). Budgets in provider
 * tokens divided by this are budgets in estimated tokens
 * (`CompactionOptions.tokenScale`).
 */
export function calibratedTokenScale(providerTokens: number | null, estimatedTokens: number | null, options: TokenCalibrationOptions = {}): number {
  const { unknownScale = 1.25, margin = 0.06, min = 0.8, max = 1.6 } = options;
  const known = (n: number | null): n is number => n !== null && Number.isFinite(n) && n > 0;
  if (!known(providerTokens) || !known(estimatedTokens)) return unknownScale;
  return Math.min(max, Math.max(min, providerTokens / estimatedTokens)) * (1 + margin);
}
