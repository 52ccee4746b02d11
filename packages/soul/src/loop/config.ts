/**
 * The soul's loop settings and their defaults (kimi-cli's `loop_control`
 * and reserved context size), plus the retry timing.
 */
import { resolveStreamTimeouts, type ChatProvider, type StreamTimeouts, type ThinkingEffort } from "@kosong/core";
import { defaultToolResultAging, type ToolResultAgingOptions } from "../recall/tool-result-aging.js";
import { DEFAULT_TRIGGER_RATIO } from "../tokens/index.js";

/** Timing of the retries of a failed LLM call. */
export interface RetryTiming {
  /** The first backoff delay, in ms (default 300); each later one doubles. */
  initialDelayMs: number;
  /** The cap of the backoff delay, in ms (default 5,000). */
  maxDelayMs: number;
  /** Up to this much random jitter is added to each backoff delay, in ms (default 500, as kimi-cli). */
  jitterMs: number;
  /** A server's `retry-after` is honoured up to this many ms (default 60,000). */
  maxRetryAfterMs: number;
}

/** The soul's settings. Every field has a default (see {@link defaultSoulConfig}). */
export interface SoulConfig {
  /** A turn ends with `max_steps` after this many steps (default 1000). */
  maxStepsPerTurn: number;
  /** A failed LLM call is retried this many times when its error is retryable (default 3). */
  maxRetriesPerStep: number;
  /**
   * Tokens kept free for the model's answer: compaction runs when
   * `tokens + reserved >= max`. Default: 50,000 (kimi-cli's), or a quarter
   * of `maxContextSize` when that is less. A value of half the window or more
   * is a `RangeError` (compaction would run on almost every step).
   */
  reservedContextSize: number;
  /** Compaction also runs when `tokens >= max * ratio` (default 0.85). */
  compactionTriggerRatio: number;
  /**
   * The model's context window in tokens. Default: the provider's
   * `maxContextSize` (core's SDK providers know current OpenAI, Anthropic,
   * Kimi and DeepSeek models: `modelContextWindows`), else null: then only a
   * context-overflow error or `soul.compact()` compacts, `StatusUpdate` has
   * no usage, and the first turn emits a `Warning` (`context_window_unknown`).
   */
  maxContextSize: number | null;
  /** The thinking effort of the agent's LLM calls; null keeps the provider's (default null). */
  thinkingEffort: ThinkingEffort | null;
  /** How long cancelled tools may take to stop after an abort, in ms (core's `cancelGraceMs`, default 5,000). */
  cancelGraceMs: number;
  /** Retry timing (defaults as kimi-cli: 0.3 s doubling to 5 s, 0.5 s jitter; `retry-after` up to 60 s). */
  retry: RetryTiming;
  /**
   * Time limits of the agent's LLM calls, for any provider, on top of the
   * provider's own (the core providers have theirs, 2 minutes to the first
   * byte and 5 minutes of stream silence by default): `firstByteMs` until
   * the response starts, `idleMs` between streamed parts. A limit that
   * passes is a retryable `APITimeoutError`, retried like a dropped
   * connection. Default `{}`: none of the soul's own.
   */
  llmTimeouts: StreamTimeouts;
  /**
   * Time limits of tool calls in ms, by tool name, with `"*"` for every
   * tool not named; null means none (default `{}`: no limits). The clock
   * stops while a tool waits for approval. A call past its limit has its
   * signal aborted and the model reads a `ToolTimeoutError` result; the
   * turn goes on. The CLI limits Shell this way.
   */
  toolTimeouts: Readonly<Record<string, number | null>>;
  /**
   * Tool-result aging, with the `Recall` tool in the toolset: when an
   * automatic compaction is due, the oldest tool outputs above `minTokens`
   * (not among the newest `keepRecent`) are first replaced by an excerpt
   * of `excerptTokens` and a pointer `Recall` expands, without a model
   * call; when that brings the context under 70 % of the threshold, no
   * full compaction runs. It is reported as a compaction (strategy
   * `tool-result-aging`). null: never (default: 1,000 / 6 / 200).
   */
  toolResultAging: ToolResultAgingOptions | null;
}

/** Settings given to the soul: any subset, `retry` also partly. */
export type SoulConfigInput = Partial<Omit<SoulConfig, "retry" | "toolResultAging">> & {
  retry?: Partial<RetryTiming>;
  toolResultAging?: Partial<ToolResultAgingOptions> | null;
};

/** The defaults. */
export const defaultSoulConfig: Readonly<SoulConfig> = Object.freeze({
  maxStepsPerTurn: 1000,
  maxRetriesPerStep: 3,
  reservedContextSize: 50_000,
  compactionTriggerRatio: DEFAULT_TRIGGER_RATIO,
  maxContextSize: null,
  thinkingEffort: null,
  cancelGraceMs: 5000,
  retry: Object.freeze({ initialDelayMs: 300, maxDelayMs: 5000, jitterMs: 500, maxRetryAfterMs: 60_000 }),
  llmTimeouts: Object.freeze({}),
  toolTimeouts: Object.freeze({}),
  toolResultAging: defaultToolResultAging,
});

/** The time limit of a call to `toolName` under `config`, in ms, or null for none. */
export function toolTimeoutFor(config: Pick<SoulConfig, "toolTimeouts">, toolName: string): number | null {
  const limits = config.toolTimeouts;
  const ms = (Object.hasOwn(limits, toolName) ? limits[toolName] : limits["*"]) ?? null;
  // Timers fire at most after 2^31-1 ms (a longer delay, Infinity included, would fire at once): that is no limit.
  return ms !== null && ms <= 2 ** 31 - 1 ? ms : null;
}

/**
 * The settings with defaults filled in; `maxContextSize` falls back to the
 * provider's own `maxContextSize` property when it has a positive one.
 * @throws RangeError naming the first setting that makes no sense.
 */
export function resolveSoulConfig(input: SoulConfigInput = {}, provider?: ChatProvider): SoulConfig {
  const { retry, toolResultAging, ...rest } = input;
  const config: SoulConfig = {
    ...defaultSoulConfig,
    ...definedOnly(rest),
    retry: { ...defaultSoulConfig.retry, ...definedOnly(retry ?? {}) },
    toolResultAging: toolResultAging === null ? null : { ...defaultToolResultAging, ...definedOnly(toolResultAging ?? {}) },
  };
  if (config.maxContextSize === null) config.maxContextSize = providerContextSize(provider);
  if (rest.reservedContextSize === undefined && config.maxContextSize !== null && config.maxContextSize > 0) {
    config.reservedContextSize = Math.min(defaultSoulConfig.reservedContextSize, Math.floor(config.maxContextSize / 4));
  }
  check("maxStepsPerTurn", config.maxStepsPerTurn, Number.isInteger(config.maxStepsPerTurn) && config.maxStepsPerTurn >= 1);
  check("maxRetriesPerStep", config.maxRetriesPerStep, Number.isInteger(config.maxRetriesPerStep) && config.maxRetriesPerStep >= 0);
  check("reservedContextSize", config.reservedContextSize, config.reservedContextSize >= 0);
  check("compactionTriggerRatio", config.compactionTriggerRatio, config.compactionTriggerRatio > 0 && config.compactionTriggerRatio <= 1);
  check("maxContextSize", config.maxContextSize, config.maxContextSize === null || config.maxContextSize > 0);
  check("cancelGraceMs", config.cancelGraceMs, config.cancelGraceMs >= 0);
  checkReserve(config);
  for (const [key, value] of Object.entries(config.retry)) check(`retry.${key}`, value, value >= 0);
  for (const [key, value] of Object.entries(config.toolResultAging ?? {})) check(`toolResultAging.${key}`, value, Number.isInteger(value) && value >= 0);
  resolveStreamTimeouts(config.llmTimeouts, { firstByteMs: null, idleMs: null });
  for (const [tool, ms] of Object.entries(config.toolTimeouts)) check(`toolTimeouts.${tool}`, ms, ms === null || (typeof ms === "number" && ms > 0));
  return config;
}

function providerContextSize(provider: ChatProvider | undefined): number | null {
  const size = provider?.maxContextSize;
  return typeof size === "number" && size > 0 ? size : null;
}

/** A reserve of half the window or more would make compaction due on almost every step. */
function checkReserve({ reservedContextSize: reserve, maxContextSize: max }: SoulConfig): void {
  if (max === null || reserve < max / 2) return;
  throw new RangeError(
    `SoulConfig.reservedContextSize (${reserve}) must be less than half of maxContextSize (${max}): ` +
      `compaction would run on almost every step. Set reservedContextSize to at most ${Math.ceil(max / 2) - 1}, ` +
      `leave it out (default: 50,000 or a quarter of the window, whichever is smaller), or set the right maxContextSize.`,
  );
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function check(name: string, value: unknown, ok: boolean): void {
  if (!ok) throw new RangeError(`SoulConfig.${name} is invalid: ${String(value)}`);
}
