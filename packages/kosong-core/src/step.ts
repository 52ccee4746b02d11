/**
 * `step`: one LLM call plus dispatch of the tool calls it makes.
 */
import type { ChatProvider } from "./chat-provider.js";
import { abortError } from "./errors.js";
import { generate, type GenerateResult, type MaybeAsync } from "./generate.js";
import type { Message, StreamedMessagePart, ToolCall } from "./message.js";
import { thrownMessage } from "./thrown-message.js";
import { ToolCancelledError, ToolRuntimeError } from "./tool-errors.js";
import type { ToolContextExtensions } from "./tool-context.js";
import type { ToolHandleOptions, ToolResult, Toolset } from "./toolset.js";
import type { StreamTimeouts } from "./stream-timeouts.js";

/** Options of {@link step}. */
export interface StepOptions {
  /** Receives every raw streamed part (see `generate`): a tool call's arguments may still be arriving in fragments. */
  onMessagePart?: MaybeAsync<StreamedMessagePart>;
  /**
   * Receives each tool call once it is complete (its final arguments), just
   * before it is handed to the toolset: in call order, before its result.
   * An exception it throws is ignored: the call still runs.
   */
  onToolCall?: (call: ToolCall) => void;
  /**
   * Receives each tool result as soon as it is ready, in completion order
   * (not after `step` has rejected). An exception it throws is ignored: the
   * result is kept.
   */
  onToolResult?: (result: ToolResult) => void;
  /**
   * Aborts the step: the LLM call stops, running tools are cancelled, and
   * `step` rejects with an AbortError. After `step` has resolved, aborting
   * still cancels the tools that are running.
   */
  signal?: AbortSignal;
  /**
   * How long a cancelled tool may take to settle after its signal aborted,
   * in ms (default 5000). `step` waits for cancelled tools to finish so that
   * nothing still runs once it has rejected; a tool that ignores its signal
   * is abandoned after this grace period. `Infinity` waits for every
   * cancelled tool however long it takes.
   */
  cancelGraceMs?: number;
  /**
   * Members added to every tool call's context (the augmented
   * {@link ToolContextExtensions}, e.g. an agent loop's approval and
   * session), handed to the toolset as `handle(call, { signal, context })`.
   */
  toolContext?: Partial<ToolContextExtensions>;
  /** Time limits of the LLM call on top of the provider's own (see `GenerateOptions.timeouts`). */
  timeouts?: StreamTimeouts;
}

/** The outcome of {@link step}. */
export interface StepResult extends GenerateResult {
  /** The tool calls of the message, in call order (each already dispatched). */
  toolCalls: ToolCall[];
  /**
   * The results of {@link toolCalls}, in call order. Never rejects because of
   * a tool: a cancelled tool yields an error result saying so.
   */
  toolResults(): Promise<ToolResult[]>;
}

/**
 * Runs one step: generates a message and dispatches its tool calls to
 * `toolset`. A tool starts as soon as its call is complete in the stream
 * (while the model may still be streaming) and tools run concurrently.
 *
 * If generation fails (a provider error, an empty response, an abort), the
 * tools already started get an aborted signal, their results are settled
 * (as cancelled), and then `step` rejects with the error. `history` is
 * never modified.
 */
export async function step(
  provider: ChatProvider,
  systemPrompt: string,
  toolset: Toolset,
  history: readonly Message[],
  options: StepOptions = {},
): Promise<StepResult> {
  const { onMessagePart, onToolResult, signal, toolContext, timeouts } = options;
  const announce = options.onToolCall;
  const grace = options.cancelGraceMs ?? 5000;
  if (!(grace >= 0)) throw new RangeError(`cancelGraceMs must be a non-negative number, got ${String(grace)}`);
  if (signal?.aborted) throw abortError(signal);

  const controller = new AbortController();
  const linkAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener("abort", linkAbort, { once: true });
  const unlink = (): void => signal?.removeEventListener("abort", linkAbort);

  const toolCalls: ToolCall[] = [];
  const results: Promise<ToolResult>[] = [];
  let failed = false;
  const report = (result: ToolResult): ToolResult => {
    if (!failed) notify(onToolResult, result);
    return result;
  };
  const onToolCall = (call: ToolCall): void => {
    notify(announce, call);
    toolCalls.push(call);
    results.push(dispatch(toolset, call, { signal: controller.signal, context: toolContext }, grace).then(report));
  };

  let generated: GenerateResult;
  try {
    const generateOptions = { onToolCall, signal: controller.signal, ...(onMessagePart === undefined ? {} : { onMessagePart }), ...(timeouts === undefined ? {} : { timeouts }) };
    generated = await generate(provider, systemPrompt, toolset.tools, history, generateOptions);
  } catch (error) {
    failed = true;
    if (!controller.signal.aborted) controller.abort(abortError());
    await Promise.allSettled(results);
    unlink();
    throw error;
  }

  const all = Promise.all(results);
  all.then(unlink, unlink);
  return { ...generated, toolCalls, toolResults: () => all };
}

/** Calls `callback` with `value`, if given; as in kosong, a failing callback loses nothing. */
function notify<T>(callback: ((value: T) => void) | undefined, value: T): void {
  if (callback === undefined) return;
  try {
    callback(value);
  } catch {
    // The call runs and the result is kept all the same.
  }
}

/**
 * Hands one call to the toolset and settles with its result. Once `signal`
 * aborts, the result is a cancelled error result, delivered when the tool has
 * settled or after `graceMs` (a tool that ignores its signal never makes the
 * step hang, unless `graceMs` is infinite). Never rejects.
 */
function dispatch(toolset: Toolset, call: ToolCall, options: ToolHandleOptions & { signal: AbortSignal }, graceMs: number): Promise<ToolResult> {
  const { signal } = options;
  const id = call.id;
  if (signal.aborted) return Promise.resolve(cancelled(id));
  let handled: Promise<ToolResult>;
  try {
    handled = toolset.handle(call, options);
  } catch (error) {
    return Promise.resolve({ tool_call_id: id, return_value: new ToolRuntimeError(thrownMessage(error)) });
  }
  return new Promise<ToolResult>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // setTimeout would turn a delay beyond 2^31-1 ms (Infinity included) into 1 ms.
    const onAbort = (): void => {
      if (graceMs <= maxTimerMs) timer = setTimeout(() => resolve(cancelled(id)), graceMs);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const settle = (result: () => ToolResult): void => {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
      resolve(signal.aborted ? cancelled(id) : result());
    };
    Promise.resolve(handled).then(
      (result) => settle(() => result),
      (error: unknown) => settle(() => ({ tool_call_id: id, return_value: new ToolRuntimeError(thrownMessage(error)) })),
    );
  });
}

const maxTimerMs = 2 ** 31 - 1;

function cancelled(id: string): ToolResult {
  return { tool_call_id: id, return_value: new ToolCancelledError() };
}
