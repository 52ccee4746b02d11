import type { Message } from "@kosong/core";

/**
 * kimi-cli's estimate of the tokens in `messages` (its
 * `estimate_text_tokens`): the characters of their text parts, four to a
 * token, rounded down. Characters are counted as Python counts them (code
 * points), so an astral character counts once. The default estimator of
 * `Context.tokenCountWithPending`; it is replaced by the real count at the
 * next `updateTokenCount`.
 */
export function estimateTextTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    for (const part of message.content) if (part.type === "text") chars += codePoints(part.text);
  }
  return Math.floor(chars / 4);
}

function codePoints(text: string): number {
  let surrogatePairs = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs += 1;
        i += 1;
      }
    }
  }
  return text.length - surrogatePairs;
}
