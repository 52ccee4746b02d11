import type { Message } from "@kosong/core";
import { defaultMediaTokens, type MediaTokenRule, mediaTokens } from "./media-tokens.js";
import { o200kTokenizer, type Tokenizer } from "./tokenizer.js";

/** Options of {@link estimateTokens}. */
export interface EstimateTokensOptions {
  /** How text is counted (default {@link o200kTokenizer}; {@link charsPerTokenTokenizer} is the cheap option). */
  tokenizer?: Tokenizer;
  /** What a media part costs (default {@link defaultMediaTokens}). */
  media?: Readonly<MediaTokenRule>;
}

/** Tokens every message costs besides its content (role and separators in the chat format). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Tokens every tool call costs besides its name and arguments (id, type, wrapping). */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;

/**
 * The tokens one message costs a model: its text and think parts, its tool
 * calls' names and arguments through the tokenizer, its media parts by the
 * media rule, plus {@link MESSAGE_OVERHEAD_TOKENS}.
 */
export function estimateMessageTokens(message: Message, options: EstimateTokensOptions = {}): number {
  const tokenizer = options.tokenizer ?? o200kTokenizer;
  const media = options.media ?? defaultMediaTokens;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  for (const part of message.content) {
    if (part.type === "text") tokens += tokenizer.count(part.text);
    else if (part.type === "think") tokens += tokenizer.count(part.think);
    else tokens += mediaTokens(part, media);
  }
  for (const call of message.tool_calls ?? []) {
    tokens += TOOL_CALL_OVERHEAD_TOKENS + tokenizer.count(call.function.name) + tokenizer.count(call.function.arguments ?? "");
  }
  return tokens;
}

/**
 * An estimate of the tokens `messages` cost a model, for budgets between real
 * usage reports (never a substitute for them). Counts every message afresh;
 * a {@link TokenCounter} remembers the count of each message it has seen,
 * so a growing history is never counted twice.
 */
export function estimateTokens(messages: readonly Message[], options: EstimateTokensOptions = {}): number {
  let tokens = 0;
  for (const message of messages) tokens += estimateMessageTokens(message, options);
  return tokens;
}
