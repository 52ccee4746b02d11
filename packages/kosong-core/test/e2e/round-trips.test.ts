/**
 * Round trips the APIs accept: what a provider read from a response goes back
 * in the next request in a form that API takes.
 *
 * - Anthropic: a `redacted_thinking` block (the recorded stream
 *   `provider-streams/anthropic-messages/stream-redacted-thinking.sse`, from
 *   simonw/llm-anthropic; format in Anthropic's "Extended thinking" docs,
 *   "Thinking redaction") goes back unmodified as `redacted_thinking` with its
 *   `data`, never as a `thinking` block.
 * - OpenAI Chat Completions: a tool call whose arguments never arrived (a
 *   compatible server that streams only `function.name`, chunk format of the
 *   OpenAI API reference) goes back with `"arguments": "{}"`; the API
 *   requires the field.
 */
import { describe, expect, it } from "vitest";
import { generate, toolMessage, userMessage, type Message } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";
import { fixture, readFixture } from "@kosong/test-support";

const server = useFakeProviderServer({ resetBeforeEach: true });

describe("round trips", () => {
  it("Anthropic: redacted thinking goes back as redacted_thinking with its data, unmodified", async () => {
    const recorded = readFixture("provider-streams/anthropic-messages/stream-redacted-thinking.sse")
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { content_block?: { type: string; data?: string } });
    const redacted = recorded.flatMap((event) => (event.content_block?.type === "redacted_thinking" ? [event.content_block.data!] : []));
    expect(redacted.length).toBeGreaterThan(0);
    server.enqueue(
      { fixture: fixture("provider-streams/anthropic-messages/stream-redacted-thinking.sse") },
      { message: { role: "assistant", content: [{ type: "text", text: "ok" }] } },
    );
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url });
    const first = await generate(provider, "", [], [userMessage("secret?")]);
    await generate(provider, "", [], [userMessage("secret?"), first.message, userMessage("and now?")]);

    const sent = server.requests[1]!.body!.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const blocks = sent[1]!.content;
    expect(blocks.filter((block) => block.type === "redacted_thinking")).toEqual(redacted.map((data) => ({ type: "redacted_thinking", data })));
    expect(blocks[0]!.type).toBe("redacted_thinking");
    expect(blocks.some((block) => block.type === "thinking")).toBe(false);
    expect(blocks.at(-1)!.type).toBe("text");
  });

  it("OpenAI Chat: a tool call whose arguments never arrived goes back with \"{}\"", async () => {
    const frame = (delta: object, finish: string | null = null): string =>
      `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueue(
      { sse: [frame({ role: "assistant", tool_calls: [{ index: 0, id: "call_now", type: "function", function: { name: "now" } }] }), frame({}, "tool_calls"), "data: [DONE]\n\n"] },
      { message: { role: "assistant", content: [{ type: "text", text: "It is noon." }] } },
    );
    const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
    const first = await generate(provider, "", [], [userMessage("time?")]);
    expect(first.message.tool_calls![0]!.function.arguments).toBeNull();
    const history: Message[] = [userMessage("time?"), first.message, toolMessage("call_now", "12:00")];
    await generate(provider, "", [], history);

    const sent = server.requests[1]!.body!.messages as Array<Record<string, unknown>>;
    expect(sent[1]!.tool_calls).toEqual([{ type: "function", id: "call_now", function: { name: "now", arguments: "{}" } }]);
  });
});
