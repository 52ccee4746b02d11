/**
 * `generate`: one LLM call, its stream merged into one assistant message.
 */
import type { ChatProvider, FinishReason, StreamedMessage, Tool } from "./chat-provider.js";
import { abortError, APIEmptyResponseError, ChatProviderError } from "./errors.js";
import type { Message, StreamedMessagePart, ToolCall } from "./message.js";
import { MessageMerger } from "./merge-parts.js";
import { countedTokenUsage, type TokenUsage } from "./token-usage.js";
import { UniqueToolCallIds } from "./unique-tool-call-ids.js";
import { resolveStreamTimeouts, startWithTimeouts, type StreamTimeouts } from "./stream-timeouts.js";

/** A callback that may be synchronous or return a promise (which is awaited). */
export type MaybeAsync<T> = (value: T) => void | Promise<void>;

/** Options of {@link generate}. */
export interface GenerateOptions {
  /**
   * Receives every raw part as it arrives, before it is merged. The part is
   * the provider's own object, not a copy: read it, do not mutate it. A tool
   * call whose id is empty or already taken arrives with a new id (see
   * {@link generate}).
   */
  onMessagePart?: MaybeAsync<StreamedMessagePart>;
  /**
   * Receives each tool call as soon as it is complete: when a part that does
   * not merge into it arrives (for a call with a stream index, once its
   * arguments are also a whole JSON object), or when the stream ends. Never
   * for a call cut short by a broken stream. The call is the object stored
   * in the result message.
   */
  onToolCall?: MaybeAsync<ToolCall>;
  /** Aborts the call; `generate` then rejects with an AbortError and calls no callback anymore. */
  signal?: AbortSignal;
  /**
   * Time limits of this call on top of the provider's own, for any
   * provider: until the response starts, and between streamed parts. A
   * limit that passes ends the call with a retryable `APITimeoutError`
   * (default: none; the core providers have their own, see
   * `DEFAULT_STREAM_TIMEOUTS`).
   */
  timeouts?: StreamTimeouts;
}

/** The outcome of {@link generate}. */
export interface GenerateResult {
  /** The response id the provider reported, if any. */
  id: string | null;
  /** The merged assistant message: every part complete and merged as far as kosong merges. */
  message: Message;
  /** Token usage, when the provider reported it as counts (see {@link countedTokenUsage}); else null. */
  usage: TokenUsage | null;
  /** Why the model stopped, when the provider reported it. */
  finishReason: FinishReason | null;
}

/**
 * Generates one assistant message from `history`, streaming raw parts to
 * `onMessagePart` and complete tool calls to `onToolCall`.
 *
 * Tool-call ids are made unique on receipt, before any callback sees the
 * call: a call whose id is empty, or the id of an earlier call of this
 * message or of `history`, gets `<id>_<n>` (`call_<n>` for an empty id)
 * instead, so every call can be answered by its own result and no provider
 * rejects the conversation later for repeated ids.
 *
 * Callbacks run in stream order and are awaited when they return a promise.
 * A tool call is reported to `onToolCall` once it can no longer grow (see
 * {@link MessageMerger}), and the rest at the end of the stream.
 *
 * If the stream breaks with a {@link ChatProviderError}, a call not
 * reported yet is never reported (its arguments may be cut short, so it
 * never runs) and the error is thrown. Only when every call of the message
 * was already complete (a part that is not a call followed them) is the
 * partial message returned instead, as kosong does.
 *
 * @throws ChatProviderError (and subclasses) from the provider, or for a
 *   malformed stream (an argument fragment for an already completed call).
 * @throws APIEmptyResponseError when the response has no text, media or tool call (thinking only counts as empty).
 * @throws an AbortError when `signal` aborts, at any moment.
 */
export function generate(
  provider: ChatProvider,
  systemPrompt: string,
  tools: readonly Tool[],
  history: readonly Message[],
  options: GenerateOptions = {},
): Promise<GenerateResult> {
  const signal = options.signal;
  if (signal === undefined) return run(provider, systemPrompt, tools, history, options, undefined, notAborted);
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<GenerateResult>((resolve, reject) => {
    // The loop reads this flag rather than `signal.aborted` (an accessor call) on every part.
    const state: AbortState = { aborted: false };
    const onAbort = (): void => {
      state.aborted = true;
      reject(abortError(signal));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    run(provider, systemPrompt, tools, history, options, signal, state).then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

interface AbortState {
  aborted: boolean;
}

const notAborted: AbortState = { aborted: false };

async function run(
  provider: ChatProvider,
  systemPrompt: string,
  tools: readonly Tool[],
  history: readonly Message[],
  options: GenerateOptions,
  signal: AbortSignal | undefined,
  state: AbortState,
): Promise<GenerateResult> {
  const onToolCall = options.onToolCall;
  const limits = resolveStreamTimeouts(options.timeouts, { firstByteMs: null, idleMs: null });
  const stream = await startWithTimeouts(`${provider.name} ${provider.modelName}`, limits, signal, (linked) =>
    provider.generate(systemPrompt, tools, history, linked === undefined ? {} : { signal: linked }),
  );
  const merger = new MessageMerger();
  let streamError: ChatProviderError | undefined;
  try {
    if (state.aborted) throw abortError(signal);
    await consume(stream, merger, new UniqueToolCallIds(history), options, state);
  } catch (error) {
    if (state.aborted) throw abortError(signal);
    if (merger.malformed || !ChatProviderError.isInstance(error)) throw error;
    streamError = error;
  }

  const message = merger.message;
  if (streamError !== undefined) {
    streamError.usage = countedTokenUsage(streamError.usage ?? stream.usage);
    if (merger.abandon() > 0 || !message.tool_calls?.length) throw streamError;
  } else if (onToolCall !== undefined) {
    for (const call of merger.finish()) {
      const pending = onToolCall(call);
      if (pending != null) await pending;
      if (state.aborted) throw abortError(signal);
    }
  }
  if (isEmpty(message)) {
    const empty = new APIEmptyResponseError("The API returned an empty response.");
    empty.usage = countedTokenUsage(stream.usage);
    throw empty;
  }
  return { id: stream.id, message, usage: countedTokenUsage(stream.usage), finishReason: stream.finishReason ?? null };
}

/**
 * The hot loop, kept in a small function of its own: every await suspends
 * and resumes the function's frame, which costs more the more locals it has.
 * Throws `abortError()` without a reason on abort; `run` rethrows the signal's.
 */
async function consume(stream: StreamedMessage, merger: MessageMerger, ids: UniqueToolCallIds, options: GenerateOptions, state: AbortState): Promise<void> {
  const { onMessagePart, onToolCall } = options;
  for await (const received of stream) {
    if (state.aborted) throw abortError();
    const part = received.type === "function" ? ids.receive(received) : received;
    if (onMessagePart !== undefined) {
      const pending = onMessagePart(part);
      if (pending != null) await pending;
      if (state.aborted) throw abortError();
    }
    const done = merger.push(part);
    if (done !== null && onToolCall !== undefined) {
      for (const call of done) {
        const pending = onToolCall(call);
        if (pending != null) await pending;
        if (state.aborted) throw abortError();
      }
    }
  }
}

function isEmpty(message: Message): boolean {
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) return false;
  for (const part of message.content) {
    if (part.type === "think") continue;
    if (part.type !== "text" || part.text !== "") return false;
  }
  return true;
}
