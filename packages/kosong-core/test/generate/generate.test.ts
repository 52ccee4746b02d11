import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIEmptyResponseError,
  APIStatusError,
  ChatProviderError,
  generate,
  isAbortError,
  textPart,
  thinkPart,
  tokenUsage,
  toolCall,
  toolCallPart,
  userMessage,
  type StreamedMessagePart,
  type Tool,
  type ToolCall,
} from "@kosong/core";
import { flush, gate, partsProvider, StreamProvider, whenAborted } from "../helpers/stream-provider.js";
import { rejection } from "../helpers/rejection.js";

function describePart(part: StreamedMessagePart): string {
  switch (part.type) {
    case "text":
      return `text:${part.text}`;
    case "think":
      return `think:${part.think}`;
    case "function":
      return `call:${part.id}`;
    case "tool_call_part":
      return `frag:${part.arguments_part}`;
    default:
      return part.type;
  }
}


describe("generate", () => {
  it("returns the merged message with the stream's id, usage and finish reason", async () => {
    const usage = tokenUsage({ input_other: 10, output: 3 });
    const provider = partsProvider([thinkPart("hm"), textPart("Hi"), textPart("!")], { id: "resp-1", usage, finishReason: "stop" });
    const tools: Tool[] = [{ name: "t", description: "d", parameters: { type: "object" } }];
    const history = [userMessage("hello")];
    const result = await generate(provider, "be nice", tools, history);
    expect(result).toEqual({
      id: "resp-1",
      message: { role: "assistant", content: [thinkPart("hm"), textPart("Hi!")] },
      usage,
      finishReason: "stop",
    });
    expect(provider.calls[0]).toMatchObject({ systemPrompt: "be nice", tools, history });
    expect(history).toEqual([userMessage("hello")]);
  });

  it("reports null id, usage and finish reason when the provider gave none", async () => {
    const result = await generate(partsProvider([textPart("x")]), "", [], []);
    expect(result.id).toBeNull();
    expect(result.usage).toBeNull();
    expect(result.finishReason).toBeNull();
  });

  it("reports each tool call as soon as the next non-merging part arrives, and the last at the end", async () => {
    const log: string[] = [];
    const provider = partsProvider([
      textPart("a"),
      toolCall("A", "f", null),
      toolCallPart("{}"),
      toolCall("B", "g", null),
      toolCallPart('{"x"'),
      toolCallPart(":1}"),
      toolCall("C", "h", "{}"),
    ]);
    const result = await generate(provider, "", [], [], {
      onMessagePart: (p) => void log.push(describePart(p)),
      onToolCall: (c) => void log.push(`done:${c.id}:${c.function.arguments}`),
    });
    expect(log).toEqual([
      "text:a",
      "call:A",
      "frag:{}",
      "call:B",
      "done:A:{}",
      'frag:{"x"',
      "frag::1}",
      "call:C",
      'done:B:{"x":1}',
      "done:C:{}",
    ]);
    expect(result.message.tool_calls!.map((c) => c.id)).toEqual(["A", "B", "C"]);
  });

  it("hands onToolCall the very object stored in the message", async () => {
    const calls: ToolCall[] = [];
    const result = await generate(partsProvider([toolCall("A", "f", "{}")]), "", [], [], { onToolCall: (c) => void calls.push(c) });
    expect(calls[0]).toBe(result.message.tool_calls![0]);
  });

  it("awaits async callbacks before taking the next part", async () => {
    const log: string[] = [];
    const slow = gate();
    const done = generate(partsProvider([textPart("a"), textPart("b")]), "", [], [], {
      onMessagePart: async (p) => {
        log.push(`start:${describePart(p)}`);
        if (p.type === "text" && p.text === "a") await slow.promise;
        log.push(`end:${describePart(p)}`);
      },
    });
    await flush();
    expect(log).toEqual(["start:text:a"]);
    slow.open();
    await done;
    expect(log).toEqual(["start:text:a", "end:text:a", "start:text:b", "end:text:b"]);
  });

  it("rejects an empty response and a thinking-only response with APIEmptyResponseError", async () => {
    for (const parts of [[], [thinkPart("only thinking", "sig")], [textPart("")]]) {
      const error = await rejection(generate(partsProvider(parts), "", [], []));
      expect(APIEmptyResponseError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe("The API returned an empty response.");
    }
  });

  it("accepts a response that is only a tool call", async () => {
    const result = await generate(partsProvider([toolCall("A", "Think")]), "", [], []);
    expect(result.message).toEqual({ role: "assistant", content: [], tool_calls: [toolCall("A", "Think")] });
  });

  it("rethrows a stream error when no complete tool call was received", async () => {
    const cut = new APIConnectionError("connection reset");
    const error = await rejection(generate(partsProvider([textPart("partial answer")], { error: cut }), "", [], []));
    expect(error).toBe(cut);
  });

  it("keeps the partial result when the stream breaks after every tool call was complete (kosong's recovery)", async () => {
    const calls: string[] = [];
    const provider = partsProvider(
      [textPart("running"), toolCall("A", "f", '{"a":1}'), toolCall("B", "g", null), toolCallPart('{"b":2}'), textPart("done")],
      { error: new APIConnectionError("connection reset") },
    );
    const result = await generate(provider, "", [], [], { onToolCall: (c) => void calls.push(c.id) });
    expect(result.message.tool_calls).toEqual([toolCall("A", "f", '{"a":1}'), toolCall("B", "g", '{"b":2}')]);
    expect(result.message.content).toEqual([textPart("running"), textPart("done")]);
    expect(calls).toEqual(["A", "B"]);
  });

  it("rethrows a stream error that comes while the last call could still grow, never reporting that call", async () => {
    const calls: string[] = [];
    const cut = new APIConnectionError("connection reset");
    const provider = partsProvider([toolCall("A", "f", '{"a":1}'), toolCall("B", "g", null), toolCallPart('{"b":2}')], { error: cut });
    const error = await rejection(generate(provider, "", [], [], { onToolCall: (c) => void calls.push(c.id) }));
    expect(error).toBe(cut);
    expect(calls).toEqual(["A"]);
  });

  it("rethrows the stream error when the open tool call's arguments are truncated, without reporting that call", async () => {
    const calls: string[] = [];
    const cut = new APIStatusError(502, "bad gateway");
    const provider = partsProvider([toolCall("A", "f", "{}"), toolCall("B", "g", '{"path": "/tm')], { error: cut });
    const error = await rejection(generate(provider, "", [], [], { onToolCall: (c) => void calls.push(c.id) }));
    expect(error).toBe(cut);
    expect(calls).toEqual(["A"]);
  });

  it("does not recover from errors that are not provider errors", async () => {
    const bug = new TypeError("bug in the provider");
    const error = await rejection(generate(partsProvider([toolCall("A", "f", "{}"), textPart("x")], { error: bug }), "", [], []));
    expect(error).toBe(bug);
  });

  it("fails on a fragment for an already completed indexed call, even after complete calls", async () => {
    const provider = partsProvider([
      { ...toolCall("A", "f", "{}"), index: 0 },
      { ...toolCall("B", "g", "{}"), index: 1 },
      toolCallPart("}", 0),
    ]);
    const error = await rejection(generate(provider, "", [], []));
    expect(ChatProviderError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/malformed stream/);
  });

  it("rejects at once when the signal is already aborted, without calling the provider", async () => {
    const provider = partsProvider([textPart("x")]);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(generate(provider, "", [], [], { signal: controller.signal }));
    expect(isAbortError(error)).toBe(true);
    expect(provider.calls).toHaveLength(0);
  });

  it("leaves no listener on the signal once it has resolved or rejected", async () => {
    const controller = new AbortController();
    await generate(partsProvider([textPart("x")]), "", [], [], { signal: controller.signal });
    await rejection(generate(partsProvider([textPart("x")], { error: new TypeError("bug") }), "", [], [], { signal: controller.signal }));
    await rejection(generate(partsProvider([]), "", [], [], { signal: controller.signal }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("passes the signal to the provider", async () => {
    const provider = partsProvider([textPart("x")]);
    const controller = new AbortController();
    await generate(provider, "", [], [], { signal: controller.signal });
    expect(provider.calls[0]!.signal).toBe(controller.signal);
  });

  it("rejects with an AbortError while the stream is stalled, and calls no callback afterwards", async () => {
    const stalled = gate();
    const resumed = gate();
    const provider = new StreamProvider(async function* () {
      yield textPart("before");
      yield toolCall("A", "f", "{}");
      await stalled.promise;
      resumed.open();
      yield textPart("after");
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const done = generate(provider, "", [], [], {
      signal: controller.signal,
      onMessagePart: (p) => void seen.push(describePart(p)),
      onToolCall: (c) => void seen.push(`done:${c.id}`),
    });
    await flush();
    expect(seen).toEqual(["text:before", "call:A"]);
    controller.abort();
    const error = await rejection(done);
    expect(isAbortError(error)).toBe(true);
    stalled.open();
    await resumed.promise;
    await flush();
    expect(seen).toEqual(["text:before", "call:A"]);
  });

  it("stops at once when a callback aborts", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const provider = partsProvider([textPart("a"), toolCall("A", "f", "{}"), textPart("b"), textPart("c")]);
    const error = await rejection(
      generate(provider, "", [], [], {
        signal: controller.signal,
        onMessagePart: (p) => {
          seen.push(describePart(p));
          if (p.type === "text" && p.text === "b") controller.abort();
        },
        onToolCall: (c) => void seen.push(`done:${c.id}`),
      }),
    );
    expect(isAbortError(error)).toBe(true);
    expect(seen).toEqual(["text:a", "call:A", "text:b"]);
  });

  it("turns a provider that honours the signal into an AbortError too", async () => {
    const controller = new AbortController();
    const provider = new StreamProvider(async function* (signal) {
      yield textPart("a");
      await whenAborted(signal!);
      throw new APIConnectionError("socket closed by abort");
    });
    const done = generate(provider, "", [], [], { signal: controller.signal });
    await flush();
    controller.abort(new DOMException("user pressed ctrl-c", "AbortError"));
    const error = await rejection(done);
    expect(isAbortError(error)).toBe(true);
    expect((error as Error).message).toBe("user pressed ctrl-c");
  });
});
