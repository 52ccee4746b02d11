import { APIConnectionError, APIEmptyResponseError, generate, isAbortError, userMessage } from "@kosong/core";
import { ChaosChatProvider, EchoChatProvider, ScriptedChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";

const script = [
  "id: g-1",
  "usage: input_other=12 output=30",
  "think: Weighing the options, one token at a time.",
  "text: Here is the answer, streamed in small pieces: 42.",
  String.raw`tool_call: {"id": "c1", "name": "lookup", "arguments": "{\"query\": \"the meaning of life\"}"}`,
  String.raw`tool_call: {"id": "c2", "name": "lookup", "arguments": "{\"query\": \"the universe\"}"}`,
].join("\n");

describe("the test providers through generate()", () => {
  it("a chunked echo stream merges into the same message as the whole one", async () => {
    const whole = await generate(new EchoChatProvider(), "", [], [userMessage(script)]);
    const calls: string[] = [];
    const chunked = await generate(new EchoChatProvider({ chunkSize: 4 }), "", [], [userMessage(script)], {
      onToolCall: (call) => void calls.push(call.id),
    });
    expect(chunked).toEqual(whole);
    expect(chunked.message.tool_calls).toHaveLength(2);
    expect(chunked.id).toBe("g-1");
    expect(chunked.finishReason).toBe("tool_calls");
    expect(calls).toEqual(["c1", "c2"]);
  });

  it("an empty response from chaos becomes APIEmptyResponseError, and the retry gets the script", async () => {
    const chaos = new ChaosChatProvider(new ScriptedChatProvider(["text: hello"]), { schedule: ["empty_response"] });
    await expect(generate(chaos, "", [], [userMessage("hi")])).rejects.toSatisfy(APIEmptyResponseError.isInstance);
    const result = await generate(chaos, "", [], [userMessage("hi")]);
    expect(result.message.content).toEqual([{ type: "text", text: "hello" }]);
  });

  it("a corrupted tool call reaches the message with arguments that do not parse", async () => {
    const chaos = new ChaosChatProvider(new EchoChatProvider({ chunkSize: 5 }), { schedule: ["corrupt_tool_call"] });
    const result = await generate(chaos, "", [], [userMessage(script)]);
    const [first, second] = result.message.tool_calls!;
    expect(first!.function.arguments).toBe('{"query": "the meaning of life"');
    expect(second!.function.arguments).toBe('{"query": "the universe"}');
  });

  it("a connection reset in the text fails the generation with APIConnectionError", async () => {
    const chaos = new ChaosChatProvider(new EchoChatProvider({ chunkSize: 4 }), { schedule: ["connection_reset"], seed: 1 });
    await expect(generate(chaos, "", [], [userMessage("text: a long answer that gets cut")])).rejects.toSatisfy(
      APIConnectionError.isInstance,
    );
  });

  it("an abort during a slow stream ends generate with an AbortError", async () => {
    const controller = new AbortController();
    const pending = generate(new EchoChatProvider({ chunkSize: 4, delayMs: 600_000 }), "", [], [userMessage(script)], {
      signal: controller.signal,
    });
    setImmediate(() => controller.abort());
    await expect(pending).rejects.toSatisfy(isAbortError);
  });
});
