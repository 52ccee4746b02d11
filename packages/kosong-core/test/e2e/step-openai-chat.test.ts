/**
 * End to end: `step()` with a real tool against OpenAIChatProvider, through
 * the official openai SDK and the fake provider server: round one streams two
 * parallel tool calls, the tools run, round two answers from their results.
 */
import { describe, expect, it } from "vitest";
import { extractText, toolCall } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { ANSWER, calls, converse, QUESTION, roundOne, roundTwo, SYSTEM_PROMPT } from "./calculator.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ perTest: true });

describe("step() with OpenAIChatProvider", () => {
  it("calls the tool, sends its results back as tool messages, and gets the answer", async () => {
    server.enqueue(roundOne(["call_a", "call_b"]), roundTwo);
    const provider = new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test-key", baseURL: `${server.url}/v1` });
    const { first, firstResults, second } = await converse(provider);

    expect(first.message.tool_calls).toEqual([toolCall("call_a", "add", { a: 2, b: 3 }), toolCall("call_b", "add", { a: 10, b: 20 })]);
    expect(first.finishReason).toBe("tool_calls");
    expect(first.usage).toEqual({ input_other: 40, output: 30, input_cache_read: 0, input_cache_creation: 0 });
    expect(calls).toEqual([{ a: 2, b: 3 }, { a: 10, b: 20 }]);
    expect(firstResults.map((r) => [r.tool_call_id, r.return_value.is_error, r.return_value.output])).toEqual([
      ["call_a", false, "5"],
      ["call_b", false, "30"],
    ]);

    expect(extractText(second.message)).toBe(ANSWER);
    expect(second.finishReason).toBe("stop");
    expect(second.usage).toEqual({ input_other: 25, output: 12, input_cache_read: 64, input_cache_creation: 0 });
    expect(await second.toolResults()).toEqual([]);

    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ["POST", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions"],
    ]);
    const [one, two] = server.requests.map((r) => r.body!);
    expect(one).toMatchObject({ model: "gpt-4.1", stream: true });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer test-key");
    expect(one!.tools).toEqual([
      {
        type: "function",
        function: {
          name: "add",
          description: "Add two integers.",
          parameters: expect.objectContaining({ type: "object", required: ["a", "b"] }),
        },
      },
    ]);
    // The second request replays the conversation in Chat Completions' shape:
    // the assistant's tool_calls, then one `tool` message per result.
    expect(two!.messages).toEqual([
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: QUESTION },
      {
        role: "assistant",
        content: "Let me add both.",
        tool_calls: [
          { type: "function", id: "call_a", function: { name: "add", arguments: '{"a":2,"b":3}' } },
          { type: "function", id: "call_b", function: { name: "add", arguments: '{"a":10,"b":20}' } },
        ],
      },
      { role: "tool", content: "5", tool_call_id: "call_a" },
      { role: "tool", content: "30", tool_call_id: "call_b" },
    ]);
  });
});
