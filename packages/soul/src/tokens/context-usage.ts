/**
 * How full the context is, for status lines and the auto-compaction
 * trigger, in both trigger forms: a ratio (compact at 85 % of the window by
 * default) and kimi-cli's reserve (compact when fewer than `reserved` tokens
 * are left). With both, whichever comes first triggers.
 */

/** The default trigger ratio, the soul's `compactionTriggerRatio` default too (kimi-cli's 0.85). */
export const DEFAULT_TRIGGER_RATIO = 0.85;

/** Options of {@link contextUsage}. */
export interface ContextUsageOptions {
  /** Compact at `maxContextSize * triggerRatio` tokens, 0 < ratio <= 1. Default {@link DEFAULT_TRIGGER_RATIO} (0.85) when no reserve is given either. */
  triggerRatio?: number;
  /** Compact when `tokens + reservedContextSize >= maxContextSize` (kimi-cli: 50,000). */
  reservedContextSize?: number;
}

/** What a status line needs. */
export interface ContextUsage {
  /** Tokens in use. */
  used: number;
  /** The context window. */
  max: number;
  /** `used / max` in percent, rounded to an integer (may exceed 100). */
  percent: number;
  /** The token count at which auto-compaction is due (the lower of the two triggers). */
  threshold: number;
  /** Tokens left before the threshold (0 once reached). */
  tokensToThreshold: number;
  /** True when `used >= threshold`. */
  compactionDue: boolean;
  /** Which trigger sets the threshold. */
  trigger: "ratio" | "reserve";
}

/**
 * The usage of a context of `maxContextSize` tokens holding `tokens`.
 *
 * @throws RangeError for a `maxContextSize` that is not a positive finite
 *   number, a negative `tokens` or reserve, or a ratio outside (0, 1].
 */
export function contextUsage(tokens: number, maxContextSize: number, options: ContextUsageOptions = {}): ContextUsage {
  if (!(Number.isFinite(maxContextSize) && maxContextSize > 0)) {
    throw new RangeError(`contextUsage: maxContextSize must be a positive number, got ${maxContextSize}.`);
  }
  if (!(Number.isFinite(tokens) && tokens >= 0)) throw new RangeError(`contextUsage: tokens must be >= 0, got ${tokens}.`);
  const { reservedContextSize } = options;
  const triggerRatio = options.triggerRatio ?? (reservedContextSize === undefined ? DEFAULT_TRIGGER_RATIO : undefined);
  if (triggerRatio !== undefined && !(triggerRatio > 0 && triggerRatio <= 1)) {
    throw new RangeError(`contextUsage: triggerRatio must be in (0, 1], got ${triggerRatio}.`);
  }
  if (reservedContextSize !== undefined && !(Number.isFinite(reservedContextSize) && reservedContextSize >= 0)) {
    throw new RangeError(`contextUsage: reservedContextSize must be >= 0, got ${reservedContextSize}.`);
  }
  const byRatio = triggerRatio === undefined ? Number.POSITIVE_INFINITY : maxContextSize * triggerRatio;
  const byReserve = reservedContextSize === undefined ? Number.POSITIVE_INFINITY : Math.max(0, maxContextSize - reservedContextSize);
  const threshold = Math.min(byRatio, byReserve);
  return {
    used: tokens,
    max: maxContextSize,
    percent: Math.round((tokens / maxContextSize) * 100),
    threshold,
    tokensToThreshold: Math.max(0, threshold - tokens),
    compactionDue: tokens >= threshold,
    trigger: byRatio <= byReserve ? "ratio" : "reserve",
  };
}
