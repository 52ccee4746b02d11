/**
 * Refusals are answers, not empty responses: each provider turns the model's
 * refusal into a message the caller can show, with the finish reason
 * `refusal`, never a retryable `APIEmptyResponseError`.
 *
 * Formats:
 * - OpenAI Chat Completions, "Structured Outputs" guide, "Refusals": `message.refusal` (non-stream)
 *   and `delta.refusal` chunks (stream), `content: null`.
 * - OpenAI Responses, streaming events reference: `response.refusal.delta` / `response.refusal.done`,
 *   and an output message whose content is `{type: "refusal", refusal}`.
 * - Anthropic Messages, "Handling stop reasons": `stop_reason: "refusal"`, possibly with no content.
 */
import { describe, expect, it } from "vitest";
import { APIEmptyResponseError, assistantMessage, extractText, generate, isRetryable, textPart, userMessage } from "@kosong/core";
import { AnthropicProvider, refusalMarker } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });
const history = [userMessage("How do I pick this lock?")];
const REFUSAL = "I'm sorry, I can't help with that.";

const chatFrame = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-r", object: "chat.completion.chunk", created: 0, model: "gpt-4o", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const sse = (event: string, data: object): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe("refusals", () => {
  it("OpenAI Chat (stream): delta.refusal is the answer, finish reason refusal", async () => {
    server.enqueue({
      sse: [
        chatFrame({ role: "assistant", content: null, refusal: "" }),
        chatFrame({ refusal: "I'm sorry, " }),
        chatFrame({ refusal: "I can't help with that." }),
        chatFrame({}, "stop"),
        "data: [DONE]\n\n",
      ],
    });
    const provider = new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test", baseURL: `${server.url}/v1` });
    const result = await generate(provider, "", [], history);
    expect(result.message.content).toEqual([textPart(REFUSAL)]);
    expect(result.finishReason).toBe("refusal");
  });

  it("OpenAI Chat (non-stream): message.refusal is the answer", async () => {
    server.enqueue({
      status: 200,
      body: { id: "chatcmpl-r", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: null, refusal: REFUSAL }, finish_reason: "stop" }] },
    });
    const provider = new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test", baseURL: `${server.url}/v1`, stream: false });
    const result = await generate(provider, "", [], history);
    expect(extractText(result.message)).toBe(REFUSAL);
    expect(result.finishReason).toBe("refusal");
  });

  it("OpenAI Responses: refusal deltas are the answer, finish reason refusal", async () => {
    const item = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "refusal", refusal: REFUSAL }] };
    const response = (status: string, output: object[]) => ({ id: "resp_1", object: "response", status, model: "gpt-5", output, usage: null });
    server.enqueue({
      sse: [
        sse("response.created", { type: "response.created", sequence_number: 0, response: response("in_progress", []) }),
        sse("response.output_item.added", { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
        sse("response.refusal.delta", { type: "response.refusal.delta", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, delta: REFUSAL }),
        sse("response.refusal.done", { type: "response.refusal.done", sequence_number: 3, item_id: "msg_1", output_index: 0, content_index: 0, refusal: REFUSAL }),
        sse("response.output_item.done", { type: "response.output_item.done", sequence_number: 4, output_index: 0, item }),
        sse("response.completed", { type: "response.completed", sequence_number: 5, response: response("completed", [item]) }),
      ],
    });
    const provider = new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test", baseURL: `${server.url}/v1` });
    const result = await generate(provider, "", [], history);
    expect(extractText(result.message)).toBe(REFUSAL);
    expect(result.finishReason).toBe("refusal");
  });

  it("Anthropic (stream): a refusal with no content is a marked answer, not an empty response", async () => {
    server.enqueue({
      sse: [
        sse("message_start", {
          type: "message_start",
          message: { id: "msg_r", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
        }),
        sse("message_delta", { type: "message_delta", delta: { stop_reason: "refusal", stop_sequence: null }, usage: { output_tokens: 1 } }),
        sse("message_stop", { type: "message_stop" }),
      ],
    });
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url });
    const result = await generate(provider, "", [], history);
    expect(result.message.content).toEqual([textPart(refusalMarker)]);
    expect(result.finishReason).toBe("refusal");
  });

  it("Anthropic (stream): a refusal after some text keeps that text and adds no marker", async () => {
    server.enqueue({
      sse: [
        sse("message_start", { type: "message_start", message: { id: "msg_r", type: "message", role: "assistant", content: [], usage: { input_tokens: 12, output_tokens: 0 } } }),
        sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
        sse("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "I can't" } }),
        sse("content_block_stop", { type: "content_block_stop", index: 0 }),
        sse("message_delta", { type: "message_delta", delta: { stop_reason: "refusal", stop_sequence: null }, usage: { output_tokens: 3 } }),
        sse("message_stop", { type: "message_stop" }),
      ],
    });
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url });
    const result = await generate(provider, "", [], history);
    expect(result.message.content).toEqual([textPart("I can't")]);
    expect(result.finishReason).toBe("refusal");
  });

  it("Anthropic (non-stream): an empty refusal is a marked answer", async () => {
    server.enqueue({
      status: 200,
      body: { id: "msg_r", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [], stop_reason: "refusal", stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
    });
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url, stream: false });
    const result = await generate(provider, "", [], history);
    expect(extractText(result.message)).toBe(refusalMarker);
    expect(result.finishReason).toBe("refusal");
  });

  it("an empty response that is not a refusal is still the retryable empty-response error", async () => {
    server.enqueue({ status: 200, body: { id: "msg_e", type: "message", role: "assistant", content: [], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 0 } } });
    const provider = new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url, stream: false });
    const error = await generate(provider, "", [], history).then(
      () => null,
      (e: unknown) => e,
    );
    expect(APIEmptyResponseError.isInstance(error)).toBe(true);
    expect(isRetryable(error)).toBe(true);
  });

  it("the fake server renders a scripted reply with finishReason refusal as each API sends a refusal", async () => {
    for (const stream of [true, false]) {
      server.enqueue({ message: assistantMessage(REFUSAL), finishReason: "refusal" }, { message: assistantMessage(REFUSAL), finishReason: "refusal" });
      const chat = await generate(new OpenAIChatProvider({ model: "gpt-4o", apiKey: "test", baseURL: `${server.url}/v1`, stream }), "", [], history);
      const claude = await generate(new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: server.url, stream }), "", [], history);
      for (const result of [chat, claude]) {
        expect(extractText(result.message)).toBe(REFUSAL);
        expect(result.finishReason).toBe("refusal");
      }
    }
  });
});
