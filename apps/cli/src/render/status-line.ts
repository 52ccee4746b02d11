/**
 * The status line: model, context usage as tokens, percent and a small bar,
 * the compaction strategy and the session id.
 */
import type { TokenUsage } from "@kosong/core";
import type { ContextUsage } from "@kosong/soul";
import type { ModelPrice } from "../pricing/model-prices.js";
import { formatCost, usageCost } from "../pricing/usage-cost.js";
import stringWidth from "string-width";
import type { Style } from "./terminal-style.js";

/** What the status line shows. */
export interface StatusInfo {
  model: string;
  contextTokens: number;
  /** The soul's usage figures (`soul.status.usage`), null when the window size is unknown. */
  usage: ContextUsage | null;
  sessionId: string;
  strategy: string;
  yolo: boolean;
  /** Plan mode is on (only reading tools work). */
  plan?: boolean;
  /** Tokens used this session, shown when given. */
  tokens?: SessionTokens;
  /** Without `tokens`: this session's cost is shown when given and some call was priced (as the footer shows it). */
  cost?: SessionTokens;
}

/**
 * Tokens used over a session: input (cache reads and writes included),
 * output, and the input read from a cache; and what the calls of a model
 * with a known price cost.
 */
export interface SessionTokens {
  input: number;
  output: number;
  cached: number;
  /** USD of the calls whose model has a price. */
  cost: number;
  /** Calls whose model has no price (their cost is unknown). */
  unpricedCalls: number;
}

/** A session before its first call. */
export const noTokens: Readonly<SessionTokens> = Object.freeze({ input: 0, output: 0, cached: 0, cost: 0, unpricedCalls: 0 });

/** `tokens` with one call's usage added, priced at `price` (null: the model has no known price). */
export function addUsage(tokens: SessionTokens, usage: TokenUsage, price: ModelPrice | null): SessionTokens {
  return {
    input: tokens.input + usage.input_other + usage.input_cache_read + usage.input_cache_creation,
    output: tokens.output + usage.output,
    cached: tokens.cached + usage.input_cache_read,
    cost: tokens.cost + (price ? usageCost(usage, price) : 0),
    unpricedCalls: tokens.unpricedCalls + (price ? 0 : 1),
  };
}

/** `n` tokens as `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A bar of `width` cells for `fraction` (0..1) of the window. */
export function usageBar(fraction: number, width = 10): string {
  const filled = Math.min(width, Math.max(0, Math.round(fraction * width)));
  return "▰".repeat(filled) + "▱".repeat(width - filled);
}

/**
 * The status line text. The bar is red once auto-compaction is due, yellow
 * within the last quarter before its threshold, green before that. With
 * `columns`, it fits a row of that terminal: the parts with no room are
 * left out, the session id first, then the compaction strategy, then the
 * tokens or cost (the model, the context and the modes stay).
 */
export function statusLine(info: StatusInfo, style: Style, columns?: number): string {
  const parts = [style.bold(info.model)];
  const usage = info.usage;
  if (usage) {
    const colour = usage.compactionDue ? style.red : usage.used >= usage.threshold * 0.75 ? style.yellow : style.green;
    parts.push(`${colour(usageBar(usage.used / usage.max))} ${formatTokens(usage.used)}/${formatTokens(usage.max)} (${usage.percent}%)`);
  } else {
    parts.push(`${formatTokens(info.contextTokens)} tokens`);
  }
  const tokens = info.tokens ? tokensText(info.tokens) : info.cost ? costText(info.cost) : "";
  if (tokens) parts.push(tokens);
  const strategy = `compaction: ${info.strategy}`;
  parts.push(strategy);
  if (info.yolo) parts.push(style.yellow("yolo"));
  if (info.plan) parts.push(style.cyan("plan mode"));
  const session = `session ${info.sessionId}`;
  parts.push(session);
  // string-width skips the colour codes; a row's last column is left free, so the line never wraps.
  let shown = parts;
  for (const leftOut of [session, strategy, tokens]) {
    if (columns === undefined || stringWidth(shown.join(" · ")) < columns) break;
    shown = shown.filter((part) => part !== leftOut);
  }
  return style.dim(shown.join(" · "));
}

/**
 * The session's tokens, and its cost when some call was priced (`≥` when
 * other calls were of a model without a price).
 */
function tokensText(tokens: SessionTokens): string {
  const cost = costText(tokens);
  return `in ${formatTokens(tokens.input)} · out ${formatTokens(tokens.output)} · cached ${formatTokens(tokens.cached)}${cost ? ` · ${cost}` : ""}`;
}

/** The session's cost (`≥` when some calls were of a model without a price), or "" when no call was priced. */
function costText(tokens: SessionTokens): string {
  const priced = tokens.cost > 0 || (tokens.unpricedCalls === 0 && tokens.input + tokens.output > 0);
  return priced ? `${tokens.unpricedCalls > 0 ? "≥" : ""}${formatCost(tokens.cost)}` : "";
}

/**
 * The footer of a running turn: the model, the context bar and this
 * session's tokens, set apart by a leading `▍` and wider gaps so that it is
 * never taken for the status line printed after the turn.
 */
export function footerLine(info: StatusInfo, tokens: SessionTokens, style: Style): string {
  const usage = info.usage;
  const context = usage ? `${usageBar(usage.used / usage.max)} ${formatTokens(usage.used)}/${formatTokens(usage.max)} (${usage.percent}%)` : `${formatTokens(info.contextTokens)} tokens`;
  return style.dim(`▍ ${style.bold(info.model)}   ${context}   ${tokensText(tokens)}${info.yolo ? "   yolo" : ""}${info.plan ? "   plan mode" : ""}`);
}
