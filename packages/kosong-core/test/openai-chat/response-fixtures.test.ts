/**
 * Every recorded Chat Completions response in
 * `provider-streams/openai-chat-completions/` replayed from the fake server
 * through the official SDK and OpenAIChatProvider: the merged message, the
 * usage (cached and cache-write tokens included), the id and the finish
 * reason. Error bodies are in errors.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { tokenUsage, userMessage } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const dir = "provider-streams/openai-chat-completions";
/** The fixture files replayed by this file's tests. */
const covered = new Set<string>();

const server = useFakeProviderServer();

function provider(stream = true): OpenAIChatProvider {
  return new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test-key", baseURL: `${server.url}/v1`, stream });
}

async function replay(file: string, stream = true) {
  covered.add(file);
  server.enqueue({ fixture: fixture(`${dir}/${file}`) });
  const streamed = await provider(stream).generate("", [], [userMessage("hi")]);
  const collected = await collect(streamed);
  return { ...collected, streamed, request: server.requests.at(-1)! };
}

describe("streamed responses", () => {
  it("stream-text-with-usage.chunks.jsonl: 302 text chunks merge into one text, usage from the final chunk", async () => {
    const lines = readFileSync(fixture(`${dir}/stream-text-with-usage.chunks.jsonl`), "utf8").trim().split("\n");
    const expectedText = lines
      .map((line) => JSON.parse(line) as { choices: Array<{ delta: { content?: string } }> })
      .map((chunk) => chunk.choices[0]?.delta.content ?? "")
      .join("");
    const { parts, message, streamed, request } = await replay("stream-text-with-usage.chunks.jsonl");

    expect(request.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(expectedText).toHaveLength(1724);
    expect(message.content).toEqual([{ type: "text", text: expectedText }]);
    expect(message.content[0]).toMatchObject({ text: expect.stringMatching(/^\*\*Holiday Name:\*\* Harmony Day/) });
    expect(parts.every((p) => p.type === "text" && p.text !== "")).toBe(true); // the empty role delta yields nothing
    expect(streamed.id).toBe("chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0");
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 16, output: 300 }));
    expect(streamed.finishReason).toBe("stop");
    expect(streamed.rawFinishReason).toBe("stop");
  });

  it("stream-tool-call.sse: role, content null and the first tool call in one delta, arguments in fragments", async () => {
    const { parts, message, streamed } = await replay("stream-tool-call.sse");
    expect(parts[0]).toEqual({
      type: "function",
      id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
      function: { name: "get_capital", arguments: "" },
      index: 0,
    });
    expect(parts.slice(1)).toEqual(
      ['{"', "country", '":"', "UK", '"}'].map((f) => ({ type: "tool_call_part", arguments_part: f, index: 0 })),
    );
    expect(message).toEqual({
      role: "assistant",
      content: [],
      tool_calls: [
        { type: "function", id: "call_ZR5UUuTt3pf61kjwAJIYdVMj", function: { name: "get_capital", arguments: '{"country":"UK"}' } },
      ],
    });
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 53, output: 15 }));
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.id).toBe("chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl");
  });

  it("stream-text-after-tool-result.sse: the answer after the tool result", async () => {
    const { message, streamed } = await replay("stream-text-after-tool-result.sse");
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "The capital of the UK is London." }] });
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 78, output: 9 }));
    expect(streamed.finishReason).toBe("stop");
    expect(streamed.id).toBe("chatcmpl-Dx0Xq5Xx9rHB2ehcHZCRDsnuymUXc");
  });

  it("stream-parallel-tool-calls.sse: two calls routed by index, each with `{}` arguments", async () => {
    const { parts, message, streamed } = await replay("stream-parallel-tool-calls.sse");
    expect(parts.map((p) => [p.type, "index" in p ? p.index : undefined])).toEqual([
      ["function", 0],
      ["tool_call_part", 0],
      ["function", 1],
      ["tool_call_part", 1],
    ]);
    expect(message.tool_calls).toEqual([
      { type: "function", id: "call_q2UyBRP7eXNTzAoR8lEhjc9Z", function: { name: "get_country", arguments: "{}" } },
      { type: "function", id: "call_b51ijcpFkDiTQG1bQzsrmtW5", function: { name: "get_product_name", arguments: "{}" } },
    ]);
    expect(message.content).toEqual([]);
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 364, output: 40 }));
    expect(streamed.finishReason).toBe("tool_calls");
  });
});

describe("non-stream responses", () => {
  it("nonstream-text.json: one text part, usage, id, stop", async () => {
    const { message, streamed, request } = await replay("nonstream-text.json", false);
    expect(request.body).toMatchObject({ stream: false });
    expect(request.body).not.toHaveProperty("stream_options");
    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^\*\*Holiday Name:\*\* Galaxy Day/) });
    expect(message.content[0]).toMatchObject({ text: expect.stringMatching(/dream beyond our world\.$/) });
    expect(streamed.id).toBe("chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU");
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 16, output: 363 }));
    expect(streamed.finishReason).toBe("stop");
  });

  it("nonstream-parallel-tool-calls.json: content null and two complete calls", async () => {
    const { message, streamed } = await replay("nonstream-parallel-tool-calls.json", false);
    expect(message).toEqual({
      role: "assistant",
      content: [],
      tool_calls: [
        { type: "function", id: "call_jYdIdRZHxZTn5bWCq5jlMrJi", function: { name: "delete_file", arguments: '{"path": ".env"}' } },
        { type: "function", id: "call_TmlTVWQbzrXCZ4jNsCVNbNqu", function: { name: "create_file", arguments: '{"path": "test.txt"}' } },
      ],
    });
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 71, output: 46 }));
    expect(streamed.finishReason).toBe("tool_calls");
  });

  it("nonstream-prompt-cache-hit.json: cached_tokens are input_cache_read, the rest input_other", async () => {
    const { message, streamed } = await replay("nonstream-prompt-cache-hit.json", false);
    expect(message.content).toEqual([{ type: "text", text: "OK" }]);
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 8, input_cache_read: 4012, output: 4 }));
  });

  it("nonstream-prompt-cache-write.json: cache_write_tokens are input_cache_creation (input total stays prompt_tokens)", async () => {
    const { streamed } = await replay("nonstream-prompt-cache-write.json", false);
    // Upstream ignores cache_write_tokens (input_other 4020); we report the write
    // as kosong's input_cache_creation, so the input total is unchanged.
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 8, input_cache_creation: 4012, output: 4 }));
  });

  it("nonstream-reasoning-tokens.json: reasoning tokens are part of the output", async () => {
    const { message, streamed } = await replay("nonstream-reasoning-tokens.json", false);
    expect(message.content).toEqual([{ type: "text", text: "Hello there! How can I help you today?" }]);
    expect(streamed.usage).toEqual(tokenUsage({ input_other: 7, output: 87 }));
    expect(streamed.id).toBe("chatcmpl-Dr3KNfXKBS1oDOrhqYDuLYdjX9PM4");
  });
});

it("covers every response fixture of provider-streams/openai-chat-completions (error bodies: errors.test.ts)", () => {
  const files = readdirSync(fixture(dir)).filter((f) => !f.startsWith("_") && !f.startsWith("error-"));
  expect([...covered].sort()).toEqual(files.sort());
});
