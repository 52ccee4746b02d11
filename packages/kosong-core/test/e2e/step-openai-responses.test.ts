/**
 * End to end: `step()` with a real tool against OpenAIResponsesProvider,
 * through the official openai SDK and the fake provider server. The tool
 * calls arrive as `function_call` items (item ids `fc_...`, call ids
 * `call_...`); the results go back as `function_call_output` items that
 * reference the call ids.
 */
import { describe, expect, it } from "vitest";
import { extractText, toolCall } from "@kosong/core";
import { OpenAIResponsesProvider } from "@kosong/core/openai";
import { ANSWER, calls, converse, QUESTION, roundOne, roundTwo, SYSTEM_PROMPT } from "./calculator.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ perTest: true });

describe("step() with OpenAIResponsesProvider", () => {
  it("calls the tool, sends its results back as function_call_output items, and gets the answer", async () => {
    server.enqueue(roundOne(["call_a", "call_b"]), roundTwo);
    const provider = new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test-key", baseURL: `${server.url}/v1` });
    const { first, firstResults, second } = await converse(provider);

    expect(first.message.tool_calls?.map((c) => ({ ...c, extras: undefined }))).toEqual([
      { ...toolCall("call_a", "add", { a: 2, b: 3 }), extras: undefined },
      { ...toolCall("call_b", "add", { a: 10, b: 20 }), extras: undefined },
    ]);
    expect(calls).toEqual([{ a: 2, b: 3 }, { a: 10, b: 20 }]);
    expect(firstResults.map((r) => [r.tool_call_id, r.return_value.output])).toEqual([
      ["call_a", "5"],
      ["call_b", "30"],
    ]);
    expect(extractText(second.message)).toBe(ANSWER);
    expect(second.usage).toEqual({ input_other: 25, output: 12, input_cache_read: 64, input_cache_creation: 0 });

    expect(server.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
    const [one, two] = server.requests.map((r) => r.body!);
    expect(one).toMatchObject({ model: "gpt-5", stream: true, store: false });
    expect(one!.tools).toEqual([
      { type: "function", name: "add", description: "Add two integers.", parameters: expect.objectContaining({ type: "object" }), strict: false },
    ]);
    // The second request: the assistant text as an output message, each call
    // as a function_call item, each result as a function_call_output with its call_id.
    expect(two!.input).toEqual([
      { role: "developer", content: SYSTEM_PROMPT },
      { type: "message", role: "user", content: [{ type: "input_text", text: QUESTION }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Let me add both.", annotations: [] }] },
      { type: "function_call", call_id: "call_a", name: "add", arguments: '{"a":2,"b":3}' },
      { type: "function_call", call_id: "call_b", name: "add", arguments: '{"a":10,"b":20}' },
      { type: "function_call_output", call_id: "call_a", output: [{ type: "input_text", text: "5" }] },
      { type: "function_call_output", call_id: "call_b", output: [{ type: "input_text", text: "30" }] },
    ]);
  });
});
