import { isAbortError, type StreamedMessagePart, textPart, thinkPart, tokenUsage, toolCall, toolCallPart, userMessage } from "@kosong/core";
import { MockChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { collectParts, mergeParts } from "../helpers/collect.js";

const parts: StreamedMessagePart[] = [thinkPart("hmm"), textPart("Hello"), toolCall("c1", "f", '{"a":'), toolCallPart("1}")];

describe("MockChatProvider", () => {
  it("answers every call with the same parts, id `mock` and no usage by default", async () => {
    const provider = new MockChatProvider(parts);
    expect([provider.name, provider.modelName, provider.thinkingEffort]).toEqual(["mock", "mock", null]);
    for (let i = 0; i < 2; i++) {
      const stream = await provider.generate("", [], [userMessage("anything")]);
      expect(stream.id).toBe("mock");
      expect(stream.usage).toBeNull();
      expect(await collectParts(stream)).toEqual(parts);
      expect(stream.finishReason).toBe("tool_calls");
    }
    expect(provider.calls).toHaveLength(2);
  });

  it("takes an id, a usage and a finish reason", async () => {
    const usage = tokenUsage({ input_other: 5, output: 2 });
    const provider = new MockChatProvider([textPart("x")], { id: "resp-1", usage, finishReason: "max_tokens" });
    const stream = await provider.generate("", [], []);
    await collectParts(stream);
    expect([stream.id, stream.usage, stream.finishReason]).toEqual(["resp-1", usage, "max_tokens"]);
  });

  it("streams copies, so that merging into a received part in place does not change the next response", async () => {
    const provider = new MockChatProvider(parts);
    const first = await collectParts(await provider.generate("", [], []));
    (first[1] as { text: string }).text += " mutated";
    const call = first[2] as { function: { arguments: string } };
    call.function.arguments += "tampered";
    expect(await collectParts(await provider.generate("", [], []))).toEqual(parts);
  });

  it("is not affected by later changes to the list it was given", async () => {
    const given = [textPart("a")];
    const provider = new MockChatProvider(given);
    given.push(textPart("b"));
    expect(await collectParts(await provider.generate("", [], []))).toEqual([textPart("a")]);
  });

  it("streams in chunks when asked, and honours abort", async () => {
    const provider = new MockChatProvider(parts, { chunkSize: 2 });
    const chunked = await collectParts(await provider.generate("", [], []));
    expect(chunked.length).toBeGreaterThan(parts.length);
    expect(mergeParts(chunked)).toEqual(mergeParts(parts));
    const controller = new AbortController();
    controller.abort();
    await expect(provider.generate("", [], [], { signal: controller.signal })).rejects.toSatisfy(isAbortError);
  });

  it("copies itself for a thinking effort, sharing the call log", async () => {
    const provider = new MockChatProvider(parts);
    const copy = provider.withThinking("medium");
    expect(copy.thinkingEffort).toBe("medium");
    expect(provider.thinkingEffort).toBeNull();
    await collectParts(await copy.generate("sys", [], []));
    expect(provider.calls.map((c) => [c.systemPrompt, c.thinkingEffort])).toEqual([["sys", "medium"]]);
  });
});
