/**
 * Scripted kosong messages rendered by the fake server in the Anthropic wire
 * format come back unchanged through the SDK, AnthropicProvider and
 * `generate()`, streamed and not: what the soul and CLI tests rely on. Also
 * a complete JSON body answering a stream request (compatible servers).
 */
import {
  APIStatusError,
  assistantMessage,
  generate,
  isRetryable,
  textPart,
  thinkPart,
  tokenUsage,
  toolCall,
  userMessage,
  type Message,
} from "@kosong/core";
import { describe, expect, it } from "vitest";
import { anthropicProvider } from "./helpers.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

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

describe("servers that answer a stream request with a complete JSON body", () => {
  it("reads the complete message", async () => {
    server.enqueue({
      status: 200,
      body: {
        id: "msg_whole",
        type: "message",
        role: "assistant",
        content: [
          { type: "text", text: "All at once." },
          { type: "tool_use", id: "toolu_w", name: "read", input: { path: "a.txt" } },
        ],
        stop_reason: "tool_use",
        usage: { input_tokens: 3, output_tokens: 5 },
      },
    });
    const result = await generate(anthropicProvider(server), "", [], [userMessage("go")]);
    expect(server.requests.at(-1)!.body!.stream).toBe(true);
    expect(result.message).toEqual(assistantMessage([textPart("All at once.")], [toolCall("toolu_w", "read", { path: "a.txt" })]));
    expect(result.id).toBe("msg_whole");
    expect(result.usage).toEqual(tokenUsage({ input_other: 3, output: 5 }));
    expect(result.finishReason).toBe("tool_calls");
  });

  it("reads an error body as the typed error of its kind", async () => {
    server.enqueue({ status: 200, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, headers: { "request-id": "req_w" } });
    const error = await generate(anthropicProvider(server), "", [], [userMessage("go")]).catch((e: unknown) => e);
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect([(error as APIStatusError).statusCode, (error as APIStatusError).requestId]).toEqual([529, "req_w"]);
    expect(isRetryable(error)).toBe(true);
  });
});
