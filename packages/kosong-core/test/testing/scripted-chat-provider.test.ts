import {
  APIStatusError,
  assistantMessage,
  ChatProviderError,
  extractText,
  isAbortError,
  type Message,
  type Tool,
  toolMessage,
  userMessage,
} from "@kosong/core";
import { type ScriptCallInfo, ScriptedChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { collectParts, mergeParts } from "../helpers/collect.js";
import { rejection } from "../helpers/rejection.js";


const history: Message[] = [userMessage("What is 1 + 2?")];

describe("ScriptedChatProvider", () => {
  it("answers each call with the next script, whatever the history says", async () => {
    const provider = new ScriptedChatProvider(["text: first", "id: r2\ntext: second"]);
    expect([provider.name, provider.modelName, provider.thinkingEffort]).toEqual(["scripted_echo", "scripted_echo", null]);
    expect(provider.remaining).toBe(2);
    expect(await collectParts(await provider.generate("", [], history))).toEqual([{ type: "text", text: "first" }]);
    expect(provider.remaining).toBe(1);
    const second = await provider.generate("", [], [assistantMessage("text: ignored"), userMessage("mystery: ignored too")]);
    expect(second.id).toBe("r2");
    expect(await collectParts(second)).toEqual([{ type: "text", text: "second" }]);
    expect(provider.remaining).toBe(0);
  });

  it("hands a script function the history as it was at the call: the caller (the soul's loop) appends to the array it lent afterwards", async () => {
    const kept: (readonly Message[])[] = [];
    const provider = new ScriptedChatProvider([(messages) => (kept.push(messages), "text: two")]);
    const lent: Message[] = [userMessage("one")];
    await collectParts(await provider.generate("", [], lent));
    lent.push(assistantMessage("two"), userMessage("three"));
    expect(kept[0]).toEqual([userMessage("one")]);
    expect(provider.calls[0]!.history).toEqual([userMessage("one")]);
  });

  it("runs a script function on the history and the call", async () => {
    const seen: Array<[readonly Message[], ScriptCallInfo]> = [];
    const tools: Tool[] = [{ name: "add", description: "Adds", parameters: { type: "object" } }];
    const provider = new ScriptedChatProvider([
      String.raw`tool_call: {"id": "c1", "name": "add", "arguments": "{\"a\": 1, \"b\": 2}"}`,
      async (messages, call) => {
        seen.push([messages, call]);
        return `text: the tool said ${extractText(messages.at(-1)!)}`;
      },
    ]);
    await collectParts(await provider.generate("sys", tools, history));
    const later = [...history, assistantMessage("", [{ type: "function", id: "c1", function: { name: "add", arguments: null } }]), toolMessage("c1", "3")];
    const reply = await collectParts(await provider.withThinking("high").generate("sys", tools, later));
    expect(reply).toEqual([{ type: "text", text: "the tool said 3" }]);
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toEqual(later);
    expect(seen[0]![1]).toEqual({ turn: 2, systemPrompt: "sys", tools, thinkingEffort: "high" });
  });

  it("logs every call with the script that answered it", async () => {
    const provider = new ScriptedChatProvider(["text: a", () => "text: b"]);
    await provider.generate("one", [], history);
    await provider.generate("two", [], history);
    await rejection(provider.generate("three", [], history));
    expect(provider.calls.map((c) => [c.turn, c.systemPrompt, c.script])).toEqual([
      [1, "one", "text: a"],
      [2, "two", "text: b"],
      [3, "three", null],
    ]);
    expect(provider.calls[0]!.history).toEqual(history);
  });

  it("rejects with a clear ChatProviderError once the scripts are used up, every time", async () => {
    const provider = new ScriptedChatProvider(["text: only"]);
    await provider.generate("", [], history);
    for (const turn of [2, 3]) {
      const error = await rejection(provider.generate("", [], history));
      expect(ChatProviderError.isInstance(error)).toBe(true);
      expect(error.message).toBe(`ScriptedChatProvider exhausted at turn ${turn}: all 1 script was used.`);
    }
    const none = await rejection(new ScriptedChatProvider([]).generate("", [], history));
    expect(none.message).toBe("ScriptedChatProvider exhausted at turn 1: all 0 scripts were used.");
  });

  it("accepts more scripts with push", async () => {
    const provider = new ScriptedChatProvider([]);
    provider.push("text: late", () => "text: later");
    expect(provider.remaining).toBe(2);
    expect(await collectParts(await provider.generate("", [], history))).toEqual([{ type: "text", text: "late" }]);
  });

  it("shares its queue with the copies made for a thinking effort", async () => {
    const provider = new ScriptedChatProvider(["text: a", "text: b"]);
    const thinking = provider.withThinking("low");
    expect(thinking.thinkingEffort).toBe("low");
    await thinking.generate("", [], history);
    expect(provider.remaining).toBe(1);
    expect(provider.calls).toHaveLength(1);
    expect(provider.calls[0]!.thinkingEffort).toBe("low");
  });

  it("consumes an error script, so that a retry gets the next one", async () => {
    const provider = new ScriptedChatProvider(["error: 503", "text: recovered"]);
    const error = await rejection(provider.generate("", [], history));
    expect(APIStatusError.isInstance(error) && error.statusCode).toBe(503);
    expect(await collectParts(await provider.generate("", [], history))).toEqual([{ type: "text", text: "recovered" }]);
  });

  it("consumes an invalid script and reports kosong's DSL error, or that it has no part", async () => {
    const provider = new ScriptedChatProvider(["bogus line", "usage: output=1", "text: fine"]);
    expect((await rejection(provider.generate("", [], history))).message).toBe("Invalid echo DSL at line 1: 'bogus line'");
    expect((await rejection(provider.generate("", [], history))).message).toBe(
      "ScriptedChatProvider DSL produced no streamable parts at turn 2.",
    );
    expect(await collectParts(await provider.generate("", [], history))).toEqual([{ type: "text", text: "fine" }]);
  });

  it("turns a script function's failure into a ChatProviderError (keeping provider errors and aborts as they are)", async () => {
    const own = new APIStatusError(500, "from the script");
    const provider = new ScriptedChatProvider([
      () => {
        throw new TypeError("bad fixture");
      },
      () => {
        throw own;
      },
      () => 42 as unknown as string,
    ]);
    const wrapped = await rejection(provider.generate("", [], history));
    expect(ChatProviderError.isInstance(wrapped)).toBe(true);
    expect(wrapped.message).toBe("ScriptedChatProvider script for turn 1 threw: bad fixture");
    expect(wrapped.cause).toBeInstanceOf(TypeError);
    expect(await rejection(provider.generate("", [], history))).toBe(own);
    expect((await rejection(provider.generate("", [], history))).message).toBe(
      "ScriptedChatProvider script for turn 3 returned number, expected an echo DSL string.",
    );
  });

  it("streams in chunks when asked, and honours abort without consuming a script", async () => {
    const provider = new ScriptedChatProvider(["text: streamed in pieces", "text: next"], { chunkSize: 3 });
    const parts = await collectParts(await provider.generate("", [], history));
    expect(parts.length).toBe(6);
    expect(mergeParts(parts).content).toEqual([{ type: "text", text: "streamed in pieces" }]);
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(await rejection(provider.generate("", [], history, { signal: controller.signal })))).toBe(true);
    expect(provider.remaining).toBe(1);
  });
});
