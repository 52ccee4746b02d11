/**
 * generate() over a 10,000-part in-memory stream (text in small chunks,
 * thinking with a signature, two tool calls streamed as fragments) against
 * a bare `for await` loop over the same parts. Both consume the same kind of
 * stream (a fresh async generator over one prebuilt array), so the ratio is
 * the cost of merging, callbacks and abort checks on top of iteration.
 */
import { generate, textPart, thinkPart, toolCallPart } from "@kosong/core";
import type { ChatProvider, StreamedMessage, StreamedMessagePart, StreamedToolCall } from "@kosong/core";
import type { Benchmark, BenchRow } from "../bench-types.ts";
import { compare, toRow } from "../measure.ts";

const PARTS = 10_000;

function buildParts(): StreamedMessagePart[] {
  const parts: StreamedMessagePart[] = [];
  for (let i = 0; i < 1_500; i++) parts.push(thinkPart(i % 3 === 0 ? "hm, " : "let me see "));
  parts.push(thinkPart("", "c2lnbmF0dXJl"));
  const call = (index: number, id: string, name: string): StreamedToolCall => ({
    type: "function",
    id,
    function: { name, arguments: "" },
    index,
  });
  while (parts.length < PARTS - 400) parts.push(textPart(parts.length % 5 === 0 ? " the" : "ok,"));
  for (const [index, id, name] of [[0, "call_1", "Shell"], [1, "call_2", "ReadFile"]] as const) {
    parts.push(call(index, id, name));
    parts.push(toolCallPart('{"path": "', index));
    for (let i = 0; i < 197; i++) parts.push(toolCallPart("a/", index));
    parts.push(toolCallPart('x.py"}', index));
  }
  return parts;
}

async function* iterate(parts: readonly StreamedMessagePart[]): AsyncGenerator<StreamedMessagePart> {
  for (const part of parts) yield part;
}

function memoryProvider(parts: readonly StreamedMessagePart[]): ChatProvider {
  const provider: ChatProvider = {
    name: "memory",
    modelName: "memory",
    thinkingEffort: null,
    async generate(): Promise<StreamedMessage> {
      const generator = iterate(parts);
      return { id: "bench", usage: null, finishReason: "tool_calls", [Symbol.asyncIterator]: () => generator };
    },
    withThinking: () => provider,
  };
  return provider;
}

const benchmark: Benchmark = {
  name: "generate-merge",
  async run({ quick }): Promise<BenchRow[]> {
    const parts = buildParts();
    const provider = memoryProvider(parts);
    const options = quick ? { warmup: 15, rounds: 21 } : { warmup: 30, rounds: 101 };
    let sink = 0;
    const onMessagePart = (part: StreamedMessagePart): void => {
      if (part.type === "text") sink++;
    };
    const onToolCall = (): void => {
      sink++;
    };
    const controller = new AbortController();

    const bare = async (): Promise<void> => {
      for await (const part of iterate(parts)) if (part.type === "text") sink++;
    };
    const plain = compare(async () => {
      const result = await generate(provider, "", [], []);
      sink += result.message.content.length;
    }, bare, options);
    const plainResult = await plain;

    const bareWithCallback = async (): Promise<void> => {
      for await (const part of iterate(parts)) onMessagePart(part);
    };
    const withCallbacks = await compare(async () => {
      const result = await generate(provider, "", [], [], { onMessagePart, onToolCall, signal: controller.signal });
      sink += result.message.content.length;
    }, bareWithCallback, options);

    if (sink === 0) throw new Error("nothing was consumed");
    return [
      toRow(`generate, ${PARTS} parts`, "bare for-await loop", plainResult, { goal: 1.3 }),
      toRow(`generate + callbacks + signal, ${PARTS} parts`, "for-await loop calling the callback", withCallbacks, { goal: 1.3 }),
    ];
  },
};

export default benchmark;
