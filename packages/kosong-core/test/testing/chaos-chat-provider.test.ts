import {
  APIConnectionError,
  APIStatusError,
  APITimeoutError,
  type ChatProvider,
  isAbortError,
  isRetryable,
  type StreamedMessagePart,
  textPart,
  toolCall,
  userMessage,
} from "@kosong/core";
import {
  ChaosChatProvider,
  type ChaosFault,
  type ChaosOptions,
  EchoChatProvider,
  MockChatProvider,
  ScriptedChatProvider,
} from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { collectParts, collectUntilError, mergeParts } from "../helpers/collect.js";
import { rejection } from "../helpers/rejection.js";

const history = [userMessage("hi")];
const reply: StreamedMessagePart[] = [textPart("one"), textPart("two"), textPart("three"), textPart("four"), textPart("five")];


/** What a call did: its fault (or "ok") and the details a test can see. */
async function outcome(provider: ChatProvider): Promise<string> {
  let stream;
  try {
    stream = await provider.generate("", [], history);
  } catch (error) {
    const status = APIStatusError.isInstance(error) ? ` ${error.statusCode}` : "";
    return `rejected ${(error as Error).name}${status}`;
  }
  try {
    const parts = await collectParts(stream);
    return `streamed ${parts.length}`;
  } catch (error) {
    return `failed ${(error as Error).name}`;
  }
}

async function run(options: ChaosOptions, calls = 40): Promise<{ outcomes: string[]; faults: readonly ChaosFault[] }> {
  const chaos = new ChaosChatProvider(new MockChatProvider(reply), options);
  const outcomes: string[] = [];
  for (let i = 0; i < calls; i++) outcomes.push(await outcome(chaos));
  return { outcomes, faults: chaos.faults };
}

describe("ChaosChatProvider", () => {
  it("injects the same faults for the same seed, and other faults for another seed", async () => {
    const a = await run({ seed: 42, errorProbability: 0.5 });
    const b = await run({ seed: 42, errorProbability: 0.5 });
    const c = await run({ seed: 7, errorProbability: 0.5 });
    expect(b.outcomes).toEqual(a.outcomes);
    expect(b.faults.map(({ call, kind }) => [call, kind])).toEqual(a.faults.map(({ call, kind }) => [call, kind]));
    expect(c.outcomes).not.toEqual(a.outcomes);
    // Every kind shows up over enough calls, and the log matches what the caller saw.
    const kinds = new Set(a.faults.map((f) => f.kind));
    expect(a.faults.length).toBeGreaterThan(8);
    expect(a.faults.length).toBeLessThan(32);
    expect(kinds.size).toBeGreaterThanOrEqual(5);
    const faultedCalls = new Set(a.faults.map((f) => f.call));
    a.outcomes.forEach((o, i) => {
      if (!faultedCalls.has(i + 1)) expect(o).toBe("streamed 5");
    });
  });

  it("replays a run from the seed it reports when none was given", async () => {
    const first = new ChaosChatProvider(new MockChatProvider(reply), { errorProbability: 0.5 });
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) outcomes.push(await outcome(first));
    const replay = await run({ seed: first.seed, errorProbability: 0.5 }, 20);
    expect(replay.outcomes).toEqual(outcomes);
  });

  it("passes calls through untouched with probability 0", async () => {
    const inner = new MockChatProvider(reply, { id: "inner" });
    const chaos = new ChaosChatProvider(inner, { seed: 1, errorProbability: 0 });
    expect([chaos.name, chaos.modelName, chaos.wrapped]).toEqual(["mock", "mock", inner]);
    for (let i = 0; i < 10; i++) {
      const stream = await chaos.generate("", [], history);
      expect(stream.id).toBe("inner");
      expect(await collectParts(stream)).toEqual(reply);
    }
    expect(chaos.faults).toEqual([]);
    expect(chaos.calls).toBe(10);
  });

  it("names the model chaos(...) while faults can happen", () => {
    expect(new ChaosChatProvider(new EchoChatProvider(), { seed: 1 }).modelName).toBe("chaos(echo)");
    expect(new ChaosChatProvider(new EchoChatProvider(), { errorProbability: 0, schedule: ["timeout"] }).modelName).toBe("chaos(echo)");
  });

  it("follows a schedule for the first calls, then the probability", async () => {
    const { outcomes, faults } = await run({ seed: 3, errorProbability: 0, schedule: ["rate_limit", null, "timeout", "overloaded"] }, 6);
    expect(outcomes).toEqual([
      "rejected APIStatusError 429",
      "streamed 5",
      "rejected APITimeoutError",
      "rejected APIStatusError 529",
      "streamed 5",
      "streamed 5",
    ]);
    expect(faults.map((f) => [f.call, f.kind])).toEqual([
      [1, "rate_limit"],
      [3, "timeout"],
      [4, "overloaded"],
    ]);
  });

  it("injects nothing after a schedule unless an error probability is given", async () => {
    const { outcomes } = await run({ schedule: [null, "timeout"] }, 30);
    expect(outcomes.filter((o) => o !== "streamed 5")).toEqual(["rejected APITimeoutError"]);
  });

  it("chooses among the selected kinds by weight", async () => {
    const only = await run({ seed: 9, errorProbability: 1, kinds: ["timeout"] }, 10);
    expect(new Set(only.faults.map((f) => f.kind))).toEqual(new Set(["timeout"]));
    const weighted = await run({ seed: 9, errorProbability: 1, kinds: { rate_limit: 9, server_error: 1, timeout: 0 } }, 100);
    const rateLimits = weighted.faults.filter((f) => f.kind === "rate_limit").length;
    expect(weighted.faults).toHaveLength(100);
    expect(rateLimits).toBeGreaterThan(75);
    expect(weighted.faults.some((f) => f.kind === "server_error")).toBe(true);
    expect(weighted.faults.some((f) => f.kind === "timeout")).toBe(false);
  });

  describe("request faults", () => {
    it("rejects with a retryable 429 carrying retryAfterMs, without calling the wrapped provider", async () => {
      const inner = new ScriptedChatProvider(["text: kept for the retry"]);
      const chaos = new ChaosChatProvider(inner, { seed: 1, schedule: ["rate_limit", null], errorProbability: 0 });
      const error = await rejection(chaos.generate("", [], history));
      expect(APIStatusError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ statusCode: 429, retryAfterMs: 1000, errorCode: "rate_limit_exceeded" });
      expect(error.message).toBe("Rate limit exceeded (injected by ChaosChatProvider)");
      expect(isRetryable(error)).toBe(true);
      expect(chaos.faults).toEqual([{ call: 1, kind: "rate_limit", error }]);
      expect(inner.calls).toHaveLength(0);
      expect(await collectParts(await chaos.generate("", [], history))).toEqual([textPart("kept for the retry")]);
    });

    it("takes the retry hint from the options (null for none)", async () => {
      const custom = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["rate_limit"], retryAfterMs: 25 });
      expect(await rejection(custom.generate("", [], history))).toMatchObject({ retryAfterMs: 25 });
      const none = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["rate_limit"], retryAfterMs: null });
      expect(await rejection(none.generate("", [], history))).toMatchObject({ retryAfterMs: null });
    });

    it("rejects with 5xx statuses from the configured list", async () => {
      const { faults } = await run({ seed: 5, errorProbability: 1, kinds: ["server_error"] }, 30);
      const statuses = new Set(faults.map((f) => (f.kind === "server_error" ? (f.error as APIStatusError).statusCode : 0)));
      expect(statuses).toEqual(new Set([500, 502, 503, 504]));
      const only503 = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["server_error"], serverErrorStatuses: [503] });
      const error = await rejection(only503.generate("", [], history));
      expect(error).toMatchObject({ statusCode: 503, message: "Service temporarily unavailable (injected by ChaosChatProvider)" });
      expect(isRetryable(error)).toBe(true);
    });

    it("rejects with a 529 overloaded error and with a timeout", async () => {
      const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["overloaded", "timeout"] });
      const overloaded = await rejection(chaos.generate("", [], history));
      expect(overloaded).toMatchObject({ statusCode: 529, errorType: "overloaded_error" });
      expect(isRetryable(overloaded)).toBe(true);
      const timeout = await rejection(chaos.generate("", [], history));
      expect(APITimeoutError.isInstance(timeout)).toBe(true);
      expect(isRetryable(timeout)).toBe(true);
    });
  });

  describe("stream faults", () => {
    it("resets the connection after 1 to maxPartsBeforeReset parts", async () => {
      const chaos = new ChaosChatProvider(new MockChatProvider(reply), { seed: 11, errorProbability: 1, kinds: ["connection_reset"] });
      const delivered: number[] = [];
      for (let i = 0; i < 20; i++) {
        const stream = await chaos.generate("", [], history);
        const { parts, error } = await collectUntilError(stream);
        expect(APIConnectionError.isInstance(error)).toBe(true);
        expect(isRetryable(error)).toBe(true);
        expect(parts).toEqual(reply.slice(0, parts.length));
        expect(stream.finishReason).toBeNull();
        const fault = chaos.faults[i]!;
        expect(fault.kind === "connection_reset" && fault.afterParts).toBe(parts.length);
        expect(fault.kind === "connection_reset" && fault.error).toBe(error);
        delivered.push(parts.length);
      }
      expect(new Set(delivered)).toEqual(new Set([1, 2, 3]));
    });

    it("resets at the end of a stream shorter than planned", async () => {
      const chaos = new ChaosChatProvider(new MockChatProvider([textPart("only")]), {
        schedule: ["connection_reset"],
        maxPartsBeforeReset: 1_000,
        seed: 2,
      });
      const { parts, error } = await collectUntilError(await chaos.generate("", [], history));
      expect(parts).toEqual([textPart("only")]);
      expect(APIConnectionError.isInstance(error)).toBe(true);
      expect(chaos.faults[0]).toMatchObject({ kind: "connection_reset", afterParts: 1 });
    });

    it("returns an empty stream without calling the wrapped provider", async () => {
      const inner = new ScriptedChatProvider(["text: later"]);
      const chaos = new ChaosChatProvider(inner, { schedule: ["empty_response"] });
      const stream = await chaos.generate("", [], history);
      expect(await collectParts(stream)).toEqual([]);
      expect(stream.finishReason).toBe("stop");
      expect(inner.remaining).toBe(1);
      expect(chaos.faults).toEqual([{ call: 1, kind: "empty_response" }]);
    });

    const twoCalls = [
      String.raw`tool_call: {"id": "c1", "name": "read", "arguments": "{\"path\": \"a.txt\"}"}`,
      String.raw`tool_call: {"id": "c2", "name": "read", "arguments": "{\"path\": \"b.txt\"}"}`,
    ].join("\n");

    it.each([
      ["truncate", 0],
      ["truncate", 3],
      ["garble", 0],
      ["garble", 3],
    ] as const)("corrupts the arguments of the first tool call (%s, chunkSize %i)", async (corruption, chunkSize) => {
      const inner = new EchoChatProvider(chunkSize ? { chunkSize } : {});
      const chaos = new ChaosChatProvider(inner, { schedule: ["corrupt_tool_call"], corruption });
      const parts = await collectParts(await chaos.generate("", [], [userMessage(twoCalls)]));
      const [first, second] = mergeParts(parts).tool_calls!;
      const expected = corruption === "truncate" ? '{"path": "a.txt"' : '{"path": "a.txt""}';
      expect(first!.function.arguments).toBe(expected);
      expect(() => JSON.parse(first!.function.arguments!)).toThrow(SyntaxError);
      expect(second!.function.arguments).toBe('{"path": "b.txt"}');
      expect(chaos.faults).toEqual([{ call: 1, kind: "corrupt_tool_call", corruption, toolCallId: "c1" }]);
    });

    it("corrupts the last fragment of a call streamed as fragments, keeping the order of parts", async () => {
      const script = [
        "text: calling",
        'tool_call: {"id": "c1", "name": "f", "arguments": ""}',
        String.raw`tool_call_part: {"arguments_part": "{\"a\": "}`,
        "tool_call_part: 1}",
        "tool_call_part: ",
        "text: done",
      ].join("\n");
      const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["corrupt_tool_call"] });
      const parts = await collectParts(await chaos.generate("", [], [userMessage(script)]));
      expect(parts).toEqual([
        textPart("calling"),
        toolCall("c1", "f", ""),
        { type: "tool_call_part", arguments_part: '{"a": ' },
        { type: "tool_call_part", arguments_part: "1" },
        textPart("done"),
      ]);
    });

    it("leaves a response without tool-call arguments alone and logs that nothing was corrupted", async () => {
      const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["corrupt_tool_call", "corrupt_tool_call"] });
      expect(await collectParts(await chaos.generate("", [], [userMessage("text: no tools")]))).toEqual([textPart("no tools")]);
      const noArgs = 'tool_call: {"id": "c1", "name": "now"}';
      expect(await collectParts(await chaos.generate("", [], [userMessage(noArgs)]))).toEqual([toolCall("c1", "now")]);
      expect(chaos.faults.map((f) => f.kind === "corrupt_tool_call" && f.toolCallId)).toEqual([null, null]);
    });

    it("keeps the id, usage and finish reason of the wrapped stream", async () => {
      const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["corrupt_tool_call"] });
      const stream = await chaos.generate("", [], [userMessage('id: r1\nusage: output=4\ntool_call: {"id": "c", "name": "f", "arguments": "{}"}')]);
      await collectParts(stream);
      expect(stream.id).toBe("r1");
      expect(stream.usage?.output).toBe(4);
      expect(stream.finishReason).toBe("tool_calls");
    });

    it("passes the wrapped provider's own errors through", async () => {
      const chaos = new ChaosChatProvider(new ScriptedChatProvider([]), { schedule: ["connection_reset"] });
      expect((await rejection(chaos.generate("", [], history))).message).toMatch(/exhausted/);
      expect(chaos.faults).toEqual([]);
    });
  });

  it("shares its generator and fault log with thinking copies, which wrap the wrapped provider's copy", async () => {
    const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["timeout", "timeout"] });
    const copy = chaos.withThinking("high");
    expect(copy).toBeInstanceOf(ChaosChatProvider);
    expect(copy.thinkingEffort).toBe("high");
    expect(chaos.thinkingEffort).toBeNull();
    await rejection(copy.generate("", [], history));
    await rejection(chaos.generate("", [], history));
    expect(chaos.faults.map((f) => f.call)).toEqual([1, 2]);
    expect(copy.faults).toBe(chaos.faults);
  });

  it("rejects with an AbortError when the signal is already aborted, deciding nothing", async () => {
    const chaos = new ChaosChatProvider(new EchoChatProvider(), { schedule: ["timeout"] });
    const controller = new AbortController();
    controller.abort();
    expect(isAbortError(await rejection(chaos.generate("", [], history, { signal: controller.signal })))).toBe(true);
    expect([chaos.calls, chaos.faults.length]).toEqual([0, 0]);
  });

  it("rejects options that make no sense", () => {
    const inner = new EchoChatProvider();
    const bad: ChaosOptions[] = [
      { errorProbability: 1.5 },
      { errorProbability: Number.NaN },
      { kinds: ["meteor" as never] },
      { kinds: { rate_limit: -1 } },
      { kinds: [] },
      { schedule: ["flood" as never] },
      { retryAfterMs: -5 },
      { serverErrorStatuses: [404] },
      { serverErrorStatuses: [] },
      { maxPartsBeforeReset: 0 },
      { corruption: "shred" as never },
      { seed: Number.POSITIVE_INFINITY },
    ];
    for (const options of bad) expect(() => new ChaosChatProvider(inner, options), JSON.stringify(options)).toThrow(RangeError);
  });
});
