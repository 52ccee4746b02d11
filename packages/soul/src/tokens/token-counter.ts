import type { Message } from "@kosong/core";
import { type EstimateTokensOptions, estimateMessageTokens } from "./estimate-tokens.js";

/**
 * {@link estimateTokens} that remembers each message's count (keyed by the
 * message object, held weakly), so counting a history that grew by one step
 * tokenizes only the new messages. Messages are treated as immutable, as
 * the soul's history is: a message changed in place after it was counted
 * keeps its old count.
 */
export class TokenCounter {
  readonly #options: EstimateTokensOptions;
  readonly #counts = new WeakMap<Message, number>();

  constructor(options: EstimateTokensOptions = {}) {
    this.#options = { ...options };
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
