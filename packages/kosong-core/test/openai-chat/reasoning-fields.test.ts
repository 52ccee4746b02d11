/**
 * With no configuration, OpenAIChatProvider reads reasoning from the fields
 * OpenAI-compatible servers use today and sends it back in the field it
 * came in. Streams are raw frames in each server's documented shape:
 *
 * - DeepSeek, "Thinking Mode" guide (api-docs.deepseek.com/guides/thinking_mode): `delta.reasoning_content`
 *   before `delta.content`; in a tool-calling turn the assistant message's `reasoning_content` must be
 *   sent back (else 400 "Missing `reasoning_content` field in the assistant message").
 * - vLLM, "Reasoning Outputs" (docs.vllm.ai/en/latest/features/reasoning_outputs.html): `delta.reasoning`
 *   (older releases: `reasoning_content`).
 * - Ollama, OpenAI compatibility (docs.ollama.com/api/openai-compatibility): `message.reasoning` /
 *   `delta.reasoning`.
 * - OpenRouter, "Reasoning Tokens" (openrouter.ai/docs/use-cases/reasoning-tokens): `delta.reasoning`
 *   next to `delta.reasoning_details`.
 * - llama.cpp server README (`--reasoning-format deepseek`): `delta.reasoning_content`.
 */
import { describe, expect, it } from "vitest";
import { assistantMessage, generate, textPart, thinkPart, toolCall, toolMessage, userMessage, type Message } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

const frame = (delta: object, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const done = "data: [DONE]\n\n";

function provider(baseURL = `${server.url}/v1`): OpenAIChatProvider {
  return new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL });
}

/** The assistant messages of the last request body. */
function sentAssistants(): Record<string, unknown>[] {
  const messages = server.requests.at(-1)!.body!.messages as Record<string, unknown>[];
  return messages.filter((m) => m.role === "assistant");
}

/** Streams `frames`, then sends the grown history back and returns that request's assistant message. */
async function roundTrip(frames: string[], chat = provider()): Promise<{ message: Message; sent: Record<string, unknown> }> {
  server.enqueue({ sse: frames }, { sse: [frame({ content: "ok" }, "stop"), done] });
  const { message } = await generate(chat, "", [], [userMessage("q")]);
  const next: Message[] = [userMessage("q"), message];
  for (const call of message.tool_calls ?? []) next.push(toolMessage(call.id, "result"));
  await generate(chat, "", [], next);
  return { message, sent: sentAssistants()[0]! };
}

describe("reasoning fields with no configuration", () => {
  it("DeepSeek: reasoning_content is read, and sent back on the tool turn", async () => {
    const { message, sent } = await roundTrip([
      frame({ role: "assistant", content: null, reasoning_content: "Need the " }),
      frame({ reasoning_content: "weather." }),
      frame({ tool_calls: [{ index: 0, id: "call_0", type: "function", function: { name: "get_weather", arguments: '{"city":"Hangzhou"}' } }] }),
      frame({}, "tool_calls"),
      done,
    ]);
    expect(message.content).toEqual([thinkPart("Need the weather.")]);
    expect(sent).toMatchObject({ reasoning_content: "Need the weather.", tool_calls: [{ id: "call_0" }] });
    expect(sent).not.toHaveProperty("reasoning");
  });

  it("DeepSeek: an empty reasoning_content on a tool turn is sent back empty (DeepSeek rejects its absence)", async () => {
    const { message, sent } = await roundTrip([
      frame({ role: "assistant", content: null, reasoning_content: "" }),
      frame({ tool_calls: [{ index: 0, id: "call_0", type: "function", function: { name: "now", arguments: "{}" } }] }),
      frame({}, "tool_calls"),
      done,
    ]);
    expect(message.content).toEqual([thinkPart("")]);
    expect(sent.reasoning_content).toBe("");
  });

  it("vLLM (current): reasoning is read and sent back as reasoning", async () => {
    const { message, sent } = await roundTrip([frame({ role: "assistant", reasoning: "Let me think." }), frame({ content: "42" }), frame({}, "stop"), done]);
    expect(message.content).toEqual([thinkPart("Let me think."), textPart("42")]);
    expect(sent).toMatchObject({ content: "42", reasoning: "Let me think." });
    expect(sent).not.toHaveProperty("reasoning_content");
  });

  it("vLLM in transition sends both fields with the same text: read once", async () => {
    const { message, sent } = await roundTrip([
      frame({ reasoning_content: "Once.", reasoning: "Once." }),
      frame({ content: "A" }),
      frame({}, "stop"),
      done,
    ]);
    expect(message.content).toEqual([thinkPart("Once."), textPart("A")]);
    expect(sent.reasoning_content).toBe("Once.");
  });

  it("Ollama (non-stream): message.reasoning is read and sent back as reasoning", async () => {
    const chat = new OpenAIChatProvider({ model: "qwen3", apiKey: "ollama", baseURL: `${server.url}/v1`, stream: false });
    server.enqueue(
      { status: 200, body: { id: "chatcmpl-1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "Hi", reasoning: "Greet." }, finish_reason: "stop" }] } },
      { status: 200, body: { id: "chatcmpl-2", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] } },
    );
    const { message } = await generate(chat, "", [], [userMessage("q")]);
    expect(message.content).toEqual([thinkPart("Greet."), textPart("Hi")]);
    await generate(chat, "", [], [userMessage("q"), message, userMessage("again")]);
    expect(sentAssistants()[0]).toMatchObject({ content: "Hi", reasoning: "Greet." });
  });

  it("OpenRouter: delta.reasoning is read (reasoning_details beside it is ignored)", async () => {
    const { message, sent } = await roundTrip([
      frame({ role: "assistant", content: "", reasoning: "Plan.", reasoning_details: [{ type: "reasoning.text", text: "Plan.", format: "unknown", index: 0 }] }),
      frame({ content: "Done" }),
      frame({}, "stop"),
      done,
    ]);
    expect(message.content).toEqual([thinkPart("Plan."), textPart("Done")]);
    expect(sent.reasoning).toBe("Plan.");
  });

  it("llama.cpp: reasoning_content is read and sent back as reasoning_content", async () => {
    const { message, sent } = await roundTrip([frame({ role: "assistant", content: null, reasoning_content: "Hmm." }), frame({ content: "Yes" }), frame({}, "stop"), done]);
    expect(message.content).toEqual([thinkPart("Hmm."), textPart("Yes")]);
    expect(sent.reasoning_content).toBe("Hmm.");
  });

  it("before a server has answered (a restored session), the field follows the host", () => {
    const history = [userMessage("q"), assistantMessage([thinkPart("why"), textPart("a")], [toolCall("c", "f", "{}")]), toolMessage("c", "r")];
    const assistant = (chat: OpenAIChatProvider) =>
      (chat.requestBody("", [], history).messages as Record<string, unknown>[]).find((m) => m.role === "assistant")!;
    expect(assistant(provider("https://api.deepseek.com/v1")).reasoning_content).toBe("why");
    expect(assistant(provider("https://openrouter.ai/api/v1")).reasoning).toBe("why");
    expect(assistant(provider("https://api.groq.com/openai/v1")).reasoning).toBe("why");
    expect(assistant(provider("http://localhost:11434/v1")).reasoning).toBe("why");
    const openai = assistant(provider("https://api.openai.com/v1"));
    expect(openai).not.toHaveProperty("reasoning_content");
    expect(openai).not.toHaveProperty("reasoning");
  });
});
