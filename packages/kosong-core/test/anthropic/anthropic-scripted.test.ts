/**
 * Scripted kosong messages rendered by the fake server in the Anthropic wire
 * format come back unchanged through the SDK, AnthropicProvider and
 * `generate()`, streamed and not: what the soul and CLI tests rely on.
 */
import {
  assistantMessage,
  generate,
  textPart,
  thinkPart,
  tokenUsage,
  toolCall,
  userMessage,
  type Message,
} from "@kosong/core";
import type { FakeProviderServer } from "@kosong/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicProvider, startServer } from "./helpers.js";

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

const usage = tokenUsage({ input_other: 3, output: 5, input_cache_read: 70, input_cache_creation: 20 });

const messages: Array<[string, Message]> = [
  ["text", assistantMessage("Hello there")],
  [
    "signed thinking, text and two tool calls",
    assistantMessage(
      [thinkPart("Let me look.", "sig-abc"), textPart("Checking both.")],
      [toolCall("toolu_1", "read", { path: "a.txt" }), toolCall("toolu_2", "list", {})],
    ),
  ],
];

describe.each([true, false])("scripted messages (stream: %s)", (stream) => {
  it.each(messages)("%s", async (_name, message) => {
    server.enqueue({ message, usage, id: "msg_scripted", argumentsChunkSize: 4 });
    const result = await generate(anthropicProvider(server, { stream }), "", [], [userMessage("go")]);
    expect(result.message).toEqual(message);
    expect(result.usage).toEqual(usage);
    expect(result.id).toBe("msg_scripted");
    expect(result.finishReason).toBe(message.tool_calls ? "tool_calls" : "stop");
  });
});
