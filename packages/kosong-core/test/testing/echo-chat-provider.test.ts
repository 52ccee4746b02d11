import {
  APIConnectionError,
  APIStatusError,
  assistantMessage,
  ChatProviderError,
  isAbortError,
  type Message,
  type StreamedMessagePart,
  type Tool,
  textPart,
  userMessage,
} from "@kosong/core";
import { EchoChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { collectParts, collectUntilError, mergeParts } from "../helpers/collect.js";
import { rejection } from "../helpers/rejection.js";

const tools: Tool[] = [{ name: "search", description: "Search the web", parameters: { type: "object", properties: {} } }];


describe("EchoChatProvider", () => {
  it("streams the script found in the last user message", async () => {
    const provider = new EchoChatProvider();
    const history: Message[] = [
      userMessage("text: not this one"),
      assistantMessage("whatever"),
      userMessage("id: e-1\nusage: input_other=3 output=1\ntext: Hello\nthink: hm"),
    ];
    const stream = await provider.generate("system", tools, history);
    expect(stream.id).toBe("e-1");
    expect(stream.usage).toEqual({ input_other: 3, output: 1, input_cache_read: 0, input_cache_creation: 0 });
    expect(stream.finishReason).toBeNull();
    expect(await collectParts(stream)).toEqual([
      { type: "text", text: "Hello" },
      { type: "think", think: "hm", encrypted: null },
    ]);
    expect(stream.finishReason).toBe("stop");
  });

  it("joins the text parts of the last message into one script", async () => {
    const provider = new EchoChatProvider();
    const history = [userMessage([textPart("text: a\n"), { type: "image_url", image_url: { url: "u" } }, textPart("text: b")])];
    expect(await collectParts(await provider.generate("", [], history))).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
  });

  it("reports tool_calls as the finish reason when the script calls a tool, or the script's own", async () => {
    const provider = new EchoChatProvider();
    const withCall = await provider.generate("", [], [userMessage('tool_call: {"id": "c1", "name": "search", "arguments": "{}"}')]);
    await collectParts(withCall);
    expect(withCall.finishReason).toBe("tool_calls");
    expect(withCall.rawFinishReason).toBe("tool_calls");
    const cut = await provider.generate("", [], [userMessage("text: cut\nfinish_reason: max_tokens")]);
    await collectParts(cut);
    expect(cut.finishReason).toBe("max_tokens");
  });

  it("has kosong's name and model and copies itself for a thinking effort", () => {
    const provider = new EchoChatProvider();
    expect(provider.name).toBe("echo");
    expect(provider.modelName).toBe("echo");
    expect(provider.thinkingEffort).toBeNull();
    const thinking = provider.withThinking("high");
    expect(thinking).toBeInstanceOf(EchoChatProvider);
    expect(thinking).not.toBe(provider);
    expect(thinking.thinkingEffort).toBe("high");
    expect(provider.thinkingEffort).toBeNull();
  });

  it("records each call with a copy of the history list (shared with thinking copies)", async () => {
    const provider = new EchoChatProvider();
    const history = [userMessage("text: hi")];
    await provider.generate("be brief", tools, history);
    history.push(assistantMessage("hi"));
    await provider.withThinking("low").generate("again", [], [userMessage("text: x")]);
    expect(provider.calls).toHaveLength(2);
    expect(provider.calls[0]).toEqual({ systemPrompt: "be brief", tools, history: [userMessage("text: hi")], thinkingEffort: null });
    expect(provider.calls[1]!.thinkingEffort).toBe("low");
  });

  it("rejects with kosong's messages for an empty history, a last message not from the user, and no streamable parts", async () => {
    const provider = new EchoChatProvider();
    const cases: Array<[Message[], string]> = [
      [[], "EchoChatProvider requires at least one message in history."],
      [[userMessage("text: hi"), assistantMessage("text: hi")], "EchoChatProvider expects the last history message to be user."],
      [[userMessage("id: only-an-id\nusage: output=1\n# nothing else")], "EchoChatProvider DSL produced no streamable parts."],
      [[userMessage("mystery: x")], "Unknown echo DSL kind 'mystery' at line 1: 'mystery: x'"],
    ];
    for (const [history, message] of cases) {
      const error = await rejection(provider.generate("", [], history));
      expect(ChatProviderError.isInstance(error)).toBe(true);
      expect((error as Error).message).toBe(message);
    }
  });

  it("rejects generate with a scripted error that comes first", async () => {
    const provider = new EchoChatProvider();
    const error = await rejection(provider.generate("", [], [userMessage("id: x\nerror: 429 retry_after=2 Slow down")]));
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(429);
    expect((error as APIStatusError).retryAfterMs).toBe(2000);
  });

  it("streams the parts before a scripted error, then fails the stream with it", async () => {
    const provider = new EchoChatProvider();
    const stream = await provider.generate("", [], [userMessage("text: partial\nerror: connection reset")]);
    const { parts, error } = await collectUntilError(stream);
    expect(parts).toEqual([{ type: "text", text: "partial" }]);
    expect(APIConnectionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe("reset");
    expect(stream.finishReason).toBeNull();
  });

  it("can be iterated only once", async () => {
    const stream = await new EchoChatProvider().generate("", [], [userMessage("text: once")]);
    await collectParts(stream);
    await expect(collectParts(stream)).rejects.toThrow("already been iterated");
  });

  it("rejects invalid streaming options", () => {
    expect(() => new EchoChatProvider({ chunkSize: 0 })).toThrow(RangeError);
    expect(() => new EchoChatProvider({ chunkSize: 1.5 })).toThrow(RangeError);
    expect(() => new EchoChatProvider({ delayMs: -1 })).toThrow(RangeError);
  });
});

describe("streaming in chunks", () => {
  const script = [
    "id: chunky",
    "think: Let me think about this carefully.",
    "text: Hello, world! 👋🏽 and more text",
    "image_url: https://example.com/a.png",
    String.raw`tool_call: {"id": "c1", "name": "search", "arguments": "{\"query\": \"weather in Paris\"}"}`,
    'tool_call: {"id": "c2", "name": "noop"}',
    String.raw`tool_call_part: {"arguments_part": "{\"long\": \"fragment\"}"}`,
  ].join("\n");

  it("splits text, think and arguments into pieces of at most chunkSize that merge back to the same message", async () => {
    const whole = await collectParts(await new EchoChatProvider().generate("", [], [userMessage(script)]));
    const chunkedStream = await new EchoChatProvider({ chunkSize: 4 }).generate("", [], [userMessage(script)]);
    const chunked = await collectParts(chunkedStream);
    expect(chunked.length).toBeGreaterThan(whole.length * 3);
    for (const part of chunked) {
      const text = part.type === "text" ? part.text : part.type === "think" ? part.think : part.type === "tool_call_part" ? part.arguments_part : null;
      if (text !== null) expect(text.length).toBeLessThanOrEqual(5); // 4, or 5 to keep a surrogate pair whole
    }
    expect(mergeParts(chunked)).toEqual(mergeParts(whole));
    expect(chunkedStream.id).toBe("chunky");
    expect(chunkedStream.finishReason).toBe("tool_calls");
  });

  it("never splits a surrogate pair", async () => {
    const parts = await collectParts(await new EchoChatProvider({ chunkSize: 1 }).generate("", [], [userMessage("text: a😀b")]));
    expect(parts).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "😀" },
      { type: "text", text: "b" },
    ]);
  });

  it("streams a tool call as the call with its first argument piece, then fragments", async () => {
    const parts = await collectParts(
      await new EchoChatProvider({ chunkSize: 3 }).generate("", [], [userMessage(String.raw`tool_call: {"id": "c", "name": "f", "arguments": "{\"a\":1}"}`)]),
    );
    expect(parts).toEqual([
      { type: "function", id: "c", function: { name: "f", arguments: '{"a' } },
      { type: "tool_call_part", arguments_part: '":1' },
      { type: "tool_call_part", arguments_part: "}" },
    ]);
  });

  it("delivers every piece when a delay is set", async () => {
    const stream = await new EchoChatProvider({ chunkSize: 4, delayMs: 2 }).generate("", [], [userMessage("text: one two three")]);
    const parts = await collectParts(stream);
    expect(parts).toHaveLength(4);
    expect(mergeParts(parts).content).toEqual([{ type: "text", text: "one two three" }]);
  });

  it("ends with an AbortError as soon as the signal aborts in the middle of a delay", async () => {
    const controller = new AbortController();
    // Ten minutes per piece: only the abort can end this stream within the test's timeout.
    const provider = new EchoChatProvider({ delayMs: 600_000 });
    const stream = await provider.generate("", [], [userMessage("text: a\ntext: b")], { signal: controller.signal });
    const pending = collectParts(stream);
    setImmediate(() => controller.abort());
    const error = await rejection(pending);
    expect(isAbortError(error)).toBe(true);
    expect(stream.finishReason).toBeNull();
  });

  it("ends with an AbortError between pieces when there is no delay", async () => {
    const controller = new AbortController();
    const stream = await new EchoChatProvider({ chunkSize: 2 }).generate("", [], [userMessage("text: abcdefgh")], {
      signal: controller.signal,
    });
    const seen: StreamedMessagePart[] = [];
    const error = await rejection(
      (async () => {
        for await (const part of stream) {
          seen.push(part);
          if (seen.length === 2) controller.abort();
        }
      })(),
    );
    expect(isAbortError(error)).toBe(true);
    expect(seen).toHaveLength(2);
    expect(stream.finishReason).toBeNull();
  });

  it("rejects generate with an AbortError when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const provider = new EchoChatProvider();
    const error = await rejection(provider.generate("", [], [userMessage("text: x")], { signal: controller.signal }));
    expect(isAbortError(error)).toBe(true);
    expect(provider.calls).toHaveLength(0);
  });
});
