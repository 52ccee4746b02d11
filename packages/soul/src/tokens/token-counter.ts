import type { Message } from "@kosong/core";
import { type EstimateTokensOptions, estimateMessageTokens } from "./estimate-tokens.js";
import { defaultMediaTokens } from "./media-tokens.js";
import { o200kTokenizer, type Tokenizer } from "./tokenizer.js";

/** The counts every TokenCounter with the same tokenizer and media rule shares: per tokenizer, per media rule, per message. */
const shared = new WeakMap<Tokenizer, Map<string, WeakMap<Message, number>>>();

function sharedCounts(options: EstimateTokensOptions): WeakMap<Message, number> {
  const tokenizer = options.tokenizer ?? o200kTokenizer;
  const media = options.media ?? defaultMediaTokens;
  const rule = `${media.image}/${media.audio}/${media.video}`;
  let byRule = shared.get(tokenizer);
  if (byRule === undefined) shared.set(tokenizer, (byRule = new Map()));
  let counts = byRule.get(rule);
  if (counts === undefined) byRule.set(rule, (counts = new WeakMap()));
  return counts;
}

/**
 * {@link estimateTokens} that remembers each message's count (keyed by the
 * message object, held weakly), so counting a history that grew by one step
 * tokenizes only the new messages. The counts are shared by every
 * TokenCounter with the same tokenizer object and media rule, so a new
 * counter (each compaction strategy makes one) does not count a history
 * that another one counted before. Messages are treated as immutable, as
 * the soul's history is: a message changed in place after it was counted
 * keeps its old count.
 */
export class TokenCounter {
  readonly #options: EstimateTokensOptions;
  readonly #counts: WeakMap<Message, number>;

  constructor(options: EstimateTokensOptions = {}) {
    this.#options = { ...options };
    this.#counts = sharedCounts(this.#options);
  }
  /** The tokens of one message. */
  message(message: Message): number {
    let tokens = this.#counts.get(message);
    if (tokens === undefined) {
      tokens = estimateMessageTokens(message, this.#options);
      this.#counts.set(message, tokens);
    }
    return tokens;
  }

  /** The tokens of `messages`. */
  count(messages: readonly Message[]): number {
    let tokens = 0;
    for (const message of messages) tokens += this.message(message);
    return tokens;
  }
}
