import type { APIConnectionError, ChatProviderError } from "../errors.js";

/**
 * The faults a {@link ChaosChatProvider} can inject:
 *
 * - `rate_limit`: `generate` rejects with a 429 {@link APIStatusError} carrying `retryAfterMs`;
 * - `server_error`: `generate` rejects with a 5xx {@link APIStatusError} (500, 502, 503, 504 by default);
 * - `overloaded`: `generate` rejects with a 529 {@link APIStatusError} (Anthropic `overloaded_error`);
 * - `timeout`: `generate` rejects with an {@link APITimeoutError};
 * - `connection_reset`: the stream delivers some parts, then throws an {@link APIConnectionError};
 * - `corrupt_tool_call`: the arguments of the first tool call in the response are made invalid JSON;
 * - `empty_response`: the stream ends without any part.
 *
 * The request faults (`rate_limit`, `server_error`, `overloaded`, `timeout`)
 * and `empty_response` never reach the wrapped provider (a scripted provider
 * keeps its script for the retry); `connection_reset` and `corrupt_tool_call`
 * act on the wrapped provider's real response.
 */
export type ChaosFaultKind =
  | "rate_limit"
  | "server_error"
  | "overloaded"
  | "timeout"
  | "connection_reset"
  | "corrupt_tool_call"
  | "empty_response";

/** Every {@link ChaosFaultKind}. */
export const chaosFaultKinds: readonly ChaosFaultKind[] = [
  "rate_limit",
  "server_error",
  "overloaded",
  "timeout",
  "connection_reset",
  "corrupt_tool_call",
  "empty_response",
];

/** How `corrupt_tool_call` breaks the arguments: drop their last non-blank character, or put a stray `"` before it. */
export type ChaosCorruption = "truncate" | "garble";

/** A fault whose error rejects `generate`. */
export interface ChaosRequestFault {
  /** The 1-based number of the `generate` call it hit. */
  call: number;
  kind: "rate_limit" | "server_error" | "overloaded" | "timeout";
  /** The error `generate` rejected with. */
  error: ChatProviderError;
}

/** A connection reset in the middle of the stream. */
export interface ChaosResetFault {
  call: number;
  kind: "connection_reset";
  /** How many parts the stream delivered before the error (final once the stream has failed). */
  afterParts: number;
  /** The error the stream throws. */
  error: APIConnectionError;
}

/** Corrupted tool-call arguments. */
export interface ChaosCorruptionFault {
  call: number;
  kind: "corrupt_tool_call";
  corruption: ChaosCorruption;
  /**
   * The id of the tool call whose arguments were corrupted: null until the
   * stream reaches it, and for good when the response has no tool call with arguments.
   */
  toolCallId: string | null;
}

/** A response without any part. */
export interface ChaosEmptyFault {
  call: number;
  kind: "empty_response";
}

/** One injected fault, as recorded in {@link ChaosChatProvider.faults}. */
export type ChaosFault = ChaosRequestFault | ChaosResetFault | ChaosCorruptionFault | ChaosEmptyFault;
