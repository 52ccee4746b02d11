import { ChatProviderBase, type GenerationRequest } from "../chat-provider-base.js";
import type { ChatProvider, StreamedMessage, ThinkingEffort, Tool } from "../chat-provider.js";
import { ChatProviderError, isAbortError } from "../errors.js";
import type { Message } from "../message.js";
import { type ChatProviderCall, recordCall } from "./chat-provider-call.js";
import { parseEchoScript } from "./echo-dsl.js";
import { ScriptedStreamedMessage, type StreamingOptions, validateStreamingOptions } from "./scripted-streamed-message.js";
import { thinkingCopy } from "./thinking-copy.js";

/** What a script function is told about the call it answers. */
export interface ScriptCallInfo {
  /** 1 for the first `generate` call of the provider, 2 for the next, ... */
  turn: number;
  systemPrompt: string;
  tools: readonly Tool[];
  thinkingEffort: ThinkingEffort | null;
}

/**
 * One scripted response: an echo DSL string (see {@link parseEchoScript}), or
 * a function of the history (and the call) returning one, possibly async.
 * The function gets a copy of the history as it was at the call, which it
 * may keep.
 */
export type ChatScript = string | ((history: readonly Message[], call: ScriptCallInfo) => string | Promise<string>);

/** One call of a {@link ScriptedChatProvider}. */
export interface ScriptedCall extends ChatProviderCall {
  /** 1-based position of the call. */
  turn: number;
  /** The echo script that answered it, or null when none did (queue exhausted, script function failed). */
  script: string | null;
}

/** Options of {@link ScriptedChatProvider}. */
export type ScriptedChatProviderOptions = StreamingOptions;

interface ScriptQueue {
  scripts: ChatScript[];
  next: number;
  calls: ScriptedCall[];
}

/**
 * A provider that answers each `generate` call with the next script of a
 * queue (kosong's scripted echo), whatever the history says. When the queue
 * is empty, `generate` rejects with a {@link ChatProviderError} saying so.
 *
 * A script is consumed by the call that takes it, also when it turns out to
 * be invalid or describes an `error:`. Copies made by {@link withThinking}
 * share the queue and the call log with the original.
 *
 * ```ts
 * const provider = new ScriptedChatProvider([
 *   'tool_call: {"id": "c1", "name": "add", "arguments": "{\\"a\\": 1, \\"b\\": 2}"}',
 *   (history) => `text: the tool said ${extractText(history.at(-1)!)}`,
 * ]);
 * ```
 */
export class ScriptedChatProvider extends ChatProviderBase implements ChatProvider {
  readonly name = "scripted_echo";
  readonly modelName = "scripted_echo";
  readonly thinkingEffort: ThinkingEffort | null = null;
  private readonly queue: ScriptQueue;
  private readonly streaming: StreamingOptions;

  constructor(scripts: Iterable<ChatScript>, options: ScriptedChatProviderOptions = {}) {
    super();
    validateStreamingOptions(options);
    this.queue = { scripts: [...scripts], next: 0, calls: [] };
    this.streaming = { chunkSize: options.chunkSize, delayMs: options.delayMs };
  }

  /** How many scripts have not been used yet. */
  get remaining(): number {
    return this.queue.scripts.length - this.queue.next;
  }

  /** Every `generate` call so far, in order, with the script that answered it. */
  get calls(): readonly ScriptedCall[] {
    return this.queue.calls;
  }

  /** Appends scripts to the queue. */
  push(...scripts: ChatScript[]): void {
    this.queue.scripts.push(...scripts);
  }

  protected async start(request: GenerationRequest): Promise<StreamedMessage> {
    const { systemPrompt, tools, signal } = request;
    const queue = this.queue;
    const turn = queue.calls.length + 1;
    const call: ScriptedCall = { ...recordCall(request, this.thinkingEffort), turn, script: null };
    queue.calls.push(call);
    if (queue.next >= queue.scripts.length) {
      const given = queue.scripts.length;
      throw new ChatProviderError(
        `ScriptedChatProvider exhausted at turn ${turn}: all ${given} script${given === 1 ? " was" : "s were"} used.`,
      );
    }
    const source = queue.scripts[queue.next++]!;
    const info: ScriptCallInfo = { turn, systemPrompt, tools, thinkingEffort: this.thinkingEffort };
    // The call's own copy: the caller may append to the array it lent once the stream has ended.
    const text = typeof source === "string" ? source : await runScript(source, call.history, info);
    call.script = text;
    const script = parseEchoScript(text);
    if (script.parts.length === 0) {
      throw script.error ?? new ChatProviderError(`ScriptedChatProvider DSL produced no streamable parts at turn ${turn}.`);
    }
    return new ScriptedStreamedMessage({ ...script, ...this.streaming, signal });
  }

  withThinking(effort: ThinkingEffort): ScriptedChatProvider {
    return thinkingCopy(this, effort);
  }
}

async function runScript(
  script: Exclude<ChatScript, string>,
  history: readonly Message[],
  info: ScriptCallInfo,
): Promise<string> {
  let text: unknown;
  try {
    text = await script(history, info);
  } catch (error) {
    if (ChatProviderError.isInstance(error) || isAbortError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ChatProviderError(`ScriptedChatProvider script for turn ${info.turn} threw: ${reason}`, { cause: error });
  }
  if (typeof text !== "string") {
    throw new ChatProviderError(
      `ScriptedChatProvider script for turn ${info.turn} returned ${text === null ? "null" : typeof text}, expected an echo DSL string.`,
    );
  }
  return text;
}
