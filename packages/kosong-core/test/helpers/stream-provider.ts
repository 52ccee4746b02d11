import type {
  ChatProvider,
  FinishReason,
  Message,
  ProviderGenerateOptions,
  StreamedMessage,
  StreamedMessagePart,
  ThinkingEffort,
  TokenUsage,
  Tool,
} from "@kosong/core";

/** What the provider saw on one `generate` call. */
export interface ProviderCall {
  systemPrompt: string;
  tools: readonly Tool[];
  history: readonly Message[];
  signal: AbortSignal | undefined;
}

export interface StreamMeta {
  id?: string | null;
  usage?: TokenUsage | null;
  finishReason?: FinishReason | null;
}

/**
 * A provider whose stream is an async generator written by the test, so the
 * test decides exactly when each part arrives (and may wait on promises
 * between parts). It deliberately ignores the abort signal, like a provider
 * stuck on a slow network, unless the generator looks at it.
 */
export class StreamProvider implements ChatProvider {
  readonly name = "stream-test";
  readonly modelName = "stream-test-model";
  readonly thinkingEffort: ThinkingEffort | null = null;
  readonly calls: ProviderCall[] = [];

  constructor(
    private readonly source: (signal: AbortSignal | undefined) => AsyncIterable<StreamedMessagePart>,
    private readonly meta: StreamMeta = {},
  ) {}

  async generate(
    systemPrompt: string,
    tools: readonly Tool[],
    history: readonly Message[],
    options: ProviderGenerateOptions = {},
  ): Promise<StreamedMessage> {
    this.calls.push({ systemPrompt, tools, history, signal: options.signal });
    const iterable = this.source(options.signal);
    const meta = this.meta;
    return {
      id: meta.id ?? null,
      usage: meta.usage ?? null,
      finishReason: meta.finishReason ?? null,
      [Symbol.asyncIterator]: () => iterable[Symbol.asyncIterator](),
    };
  }

  withThinking(): ChatProvider {
    return this;
  }
}

/** A provider that streams `parts`, then throws `error` if given. */
export function partsProvider(parts: readonly StreamedMessagePart[], meta: StreamMeta & { error?: unknown } = {}): StreamProvider {
  return new StreamProvider(async function* () {
    for (const part of parts) yield part;
    if (meta.error !== undefined) throw meta.error;
  }, meta);
}

/** A promise with its resolve function exposed. */
export interface Gate<T = void> {
  promise: Promise<T>;
  open(value: T): void;
  readonly opened: boolean;
}

export function gate<T = void>(): Gate<T> {
  let open!: (value: T) => void;
  let opened = false;
  const promise = new Promise<T>((resolve) => {
    open = (value: T) => {
      opened = true;
      resolve(value);
    };
  });
  return {
    promise,
    open: (value: T) => open(value),
    get opened() {
      return opened;
    },
  };
}

/** Resolves when `signal` aborts. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** Lets pending microtasks and I/O callbacks run (no timing involved). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Deep-freezes a value, so that any mutation of it throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
