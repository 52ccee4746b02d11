/**
 * End to end: `step()` with a real tool against AnthropicProvider, through
 * the official @anthropic-ai/sdk and the fake provider server. The calls
 * arrive as `tool_use` blocks with streamed `input_json_delta` fragments; the
 * results go back as `tool_result` blocks, grouped in one user message.
 */
import { describe, expect, it } from "vitest";
import { extractText, toolCall } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { ANSWER, calls, converse, QUESTION, roundOne, roundTwo, SYSTEM_PROMPT } from "./calculator.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ perTest: true });

describe("step() with AnthropicProvider", () => {
  it("calls the tool, sends its results back as grouped tool_result blocks, and gets the answer", async () => {
    server.enqueue(roundOne(["toolu_a", "toolu_b"]), roundTwo);
    const provider = new AnthropicProvider({ model: "claude-opus-4-8", apiKey: "test-key", baseURL: server.url });
    const { first, firstResults, second } = await converse(provider);

    expect(first.message.tool_calls).toEqual([toolCall("toolu_a", "add", { a: 2, b: 3 }), toolCall("toolu_b", "add", { a: 10, b: 20 })]);
    expect(first.finishReason).toBe("tool_calls");
    expect(calls).toEqual([{ a: 2, b: 3 }, { a: 10, b: 20 }]);
    expect(firstResults.map((r) => [r.tool_call_id, r.return_value.output])).toEqual([
      ["toolu_a", "5"],
      ["toolu_b", "30"],
    ]);
    expect(extractText(second.message)).toBe(ANSWER);
    expect(second.usage).toEqual({ input_other: 25, output: 12, input_cache_read: 64, input_cache_creation: 0 });

    expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
    // @anthropic-ai/sdk 1.x sends the API key as a bearer token.
    expect(server.requests[0]!.headers.authorization).toBe("Bearer test-key");
    const [one, two] = server.requests.map((r) => r.body!);
    expect(one).toMatchObject({ model: "claude-opus-4-8", stream: true });
    expect(one!.tools).toEqual([
      {
        name: "add",
        description: "Add two integers.",
        input_schema: expect.objectContaining({ type: "object", required: ["a", "b"] }),
        cache_control: { type: "ephemeral" },
      },
    ]);
    // The second request: the assistant's text and tool_use blocks, then both
    // results as tool_result blocks grouped in one user message; the system
    // prompt, the last tool and the last block carry cache_control.
    expect(two!.system).toEqual([{ type: "text", text: SYSTEM_PROMPT, cache_control: { type: "ephemeral" } }]);
    expect(two!.messages).toEqual([
      { role: "user", content: [{ type: "text", text: QUESTION }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me add both." },
          { type: "tool_use", id: "toolu_a", name: "add", input: { a: 2, b: 3 } },
          { type: "tool_use", id: "toolu_b", name: "add", input: { a: 10, b: 20 } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: [{ type: "text", text: "5" }] },
          { type: "tool_result", tool_use_id: "toolu_b", content: [{ type: "text", text: "30" }], cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
  });
});
