/**
 * OpenAIChatProvider options and behaviour, through the official SDK against
 * the fake server: reasoning dialects, thinking efforts, generation options,
 * headers, a caller-supplied client, environment defaults, tool-call routing
 * of OpenAI-compatible streams.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  APIStatusError,
  assistantMessage,
  imageURLPart,
  textPart,
  thinkPart,
  tokenUsage,
  toolCall,
  toolMessage,
  userMessage,
  type JsonValue,
  type Tool,
} from "@kosong/core";
import { OpenAIChatProvider, type OpenAIChatProviderOptions } from "@kosong/core/openai";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

function provider(options: Partial<OpenAIChatProviderOptions> = {}): OpenAIChatProvider {
  return new OpenAIChatProvider({ model: "deepseek-reasoner", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

async function body(p: OpenAIChatProvider, history = [userMessage("hi")], tools: Tool[] = []) {
  server.enqueue({ message: assistantMessage("ok") });
  await collect(await p.generate("", tools, history));
  return server.requests.at(-1)!.body!;
}

const thoughtfulHistory = [
  userMessage("What is 2+2?"),
  assistantMessage([thinkPart("Adding."), textPart("4.")]),
  userMessage("Thanks!"),
];

describe("reasoningKey (OpenAI-compatible reasoning dialects)", () => {
  it("reads streamed reasoning into think parts, before the text", async () => {
    server.enqueue({
      message: assistantMessage([thinkPart("Let me "), thinkPart("add."), textPart("4")]),
      usage: tokenUsage({ input_other: 10, output: 5 }),
    });
    const { message } = await collect(await provider({ reasoningKey: "reasoning_content" }).generate("", [], [userMessage("2+2?")]));
    expect(message.content).toEqual([thinkPart("Let me add."), textPart("4")]);
  });

  it("reads reasoning of a non-stream response into one think part", async () => {
    server.enqueue({ message: assistantMessage([thinkPart("Adding."), textPart("4")]), reasoningKey: "reasoning" });
    const p = provider({ reasoningKey: "reasoning", stream: false });
    const { message } = await collect(await p.generate("", [], [userMessage("2+2?")]));
    expect(message.content).toEqual([thinkPart("Adding."), textPart("4")]);
  });

  it("reads reasoning with no configuration, and ignores it with reasoningKey: null", async () => {
    server.enqueue({ message: assistantMessage([thinkPart("shown"), textPart("4")]) });
    const { message } = await collect(await provider().generate("", [], [userMessage("2+2?")]));
    expect(message.content).toEqual([thinkPart("shown"), textPart("4")]);
    server.enqueue({ message: assistantMessage([thinkPart("hidden"), textPart("4")]) });
    const off = await collect(await provider({ reasoningKey: null }).generate("", [], [userMessage("2+2?")]));
    expect(off.message.content).toEqual([textPart("4")]);
  });

  it("writes think parts back under the key and sends reasoning_effort medium when none is set (as kosong)", async () => {
    const sent = await body(provider({ reasoningKey: "reasoning_content" }), thoughtfulHistory);
    expect(sent.messages).toEqual([
      { role: "user", content: "What is 2+2?" },
      { role: "assistant", content: "4.", reasoning_content: "Adding." },
      { role: "user", content: "Thanks!" },
    ]);
    expect(sent.reasoning_effort).toBe("medium");
  });

  it("without think parts in the history, sends no reasoning_effort", async () => {
    const sent = await body(provider({ reasoningKey: "reasoning_content" }));
    expect(sent).not.toHaveProperty("reasoning_effort");
  });

  it("with no configuration, writes think parts back in reasoning_content (no reasoning_effort); reasoningKey: null drops them", async () => {
    const sent = await body(provider(), thoughtfulHistory);
    expect((sent.messages as JsonValue[])[1]).toEqual({ role: "assistant", content: "4.", reasoning_content: "Adding." });
    expect(sent).not.toHaveProperty("reasoning_effort");
    const off = await body(provider({ reasoningKey: null }), thoughtfulHistory);
    expect((off.messages as JsonValue[])[1]).toEqual({ role: "assistant", content: "4." });
  });
});

describe("withThinking", () => {
  it.each([
    ["off", null, "off"],
    ["low", "low", "low"],
    ["medium", "medium", "medium"],
    ["high", "high", "high"],
    ["xhigh", "xhigh", "xhigh"],
    ["max", "xhigh", "xhigh"],
  ] as const)("%s sends reasoning_effort %s and reads back as %s", async (effort, wire, readBack) => {
    const base = provider();
    const thinking = base.withThinking(effort);
    expect(thinking.thinkingEffort).toBe(readBack);
    expect(base.thinkingEffort).toBeNull(); // copies, never mutation
    const sent = await body(thinking, thoughtfulHistory);
    expect(sent.reasoning_effort).toBe(wire);
  });

  it("keeps the client, options and class of the original", async () => {
    const base = provider({ reasoningKey: "reasoning_content", generation: { temperature: 0.2 } });
    const copy = base.withThinking("high");
    expect(copy).toBeInstanceOf(OpenAIChatProvider);
    expect(copy.client).toBe(base.client);
    expect(copy.modelName).toBe("deepseek-reasoner");
    expect(copy.dialect.reasoningKey).toBe("reasoning_content");
    expect((await body(copy)).temperature).toBe(0.2);
  });
});

describe("request options", () => {
  it("sends generation options under their wire names, and withGenerationOptions merges over them", async () => {
    const base = provider({ generation: { temperature: 0.7, max_tokens: 2048, top_p: undefined } });
    const sent = await body(base);
    expect(sent).toMatchObject({ temperature: 0.7, max_tokens: 2048 });
    expect(sent).not.toHaveProperty("top_p");
    const more = base.withGenerationOptions({ temperature: 0, seed: 7, logit_bias: { "50256": -100 } });
    expect(await body(more)).toMatchObject({ temperature: 0, max_tokens: 2048, seed: 7, logit_bias: { "50256": -100 } });
    expect(base.generationOptions).toEqual({ temperature: 0.7, max_tokens: 2048, top_p: undefined });
  });

  it("sends tools as function tools, and the system prompt first", async () => {
    const tool: Tool = { name: "add", description: "Add.", parameters: { type: "object", properties: { a: { type: "integer" } } } };
    server.enqueue({ message: assistantMessage("ok") });
    await collect(await provider().generate("Be brief.", [tool], [userMessage("hi")]));
    const sent = server.requests.at(-1)!.body!;
    expect(sent.tools).toEqual([{ type: "function", function: { name: "add", description: "Add.", parameters: tool.parameters } }]);
    expect((sent.messages as JsonValue[])[0]).toEqual({ role: "system", content: "Be brief." });
    expect(sent).toMatchObject({ model: "deepseek-reasoner", stream: true, stream_options: { include_usage: true } });
  });

  it("toolMessageConversion extract_text sends a tool result as one string", async () => {
    const history = [
      userMessage("look"),
      assistantMessage("", [toolCall("c1", "see", "{}")]),
      toolMessage("c1", [textPart("line 1"), imageURLPart("https://example.com/a.png"), textPart("line 2")]),
    ];
    const sent = await body(provider({ toolMessageConversion: "extract_text" }), history);
    expect((sent.messages as JsonValue[])[2]).toEqual({ role: "tool", content: "line 1\nline 2", tool_call_id: "c1" });
  });

  it("an assistant message with tool calls and no visible text omits content; partial and extras are not sent", async () => {
    const call = { ...toolCall("c1", "see", '{"x":1}'), extras: { trace: "t" } };
    const history = [userMessage("look"), { ...assistantMessage([thinkPart("hmm"), textPart("  ")], [call]), partial: true }];
    const sent = await body(provider({ reasoningKey: null }), history);
    expect((sent.messages as JsonValue[])[1]).toEqual({
      role: "assistant",
      tool_calls: [{ type: "function", id: "c1", function: { name: "see", arguments: '{"x":1}' } }],
    });
  });

  it("sends the API key and default headers (control characters stripped)", async () => {
    await body(provider({ defaultHeaders: { "x-trace": "abc\n", "user-agent": "kosong-test" } }));
    const headers = server.requests.at(-1)!.headers;
    expect(headers.authorization).toBe("Bearer test-key");
    expect(headers["x-trace"]).toBe("abc");
    expect(headers["user-agent"]).toBe("kosong-test");
  });

  it("uses a caller-supplied client as is", async () => {
    const client = new OpenAI({ apiKey: "client-key", baseURL: `${server.url}/v1`, maxRetries: 0, defaultHeaders: { "x-from": "client" } });
    const p = new OpenAIChatProvider({ model: "gpt-4o", client, apiKey: "ignored" });
    expect(p.client).toBe(client);
    await body(p);
    const request = server.requests.at(-1)!;
    expect(request.headers.authorization).toBe("Bearer client-key");
    expect(request.headers["x-from"]).toBe("client");
  });

  it("sends one request with a caller-supplied client that would retry itself", async () => {
    const client = new OpenAI({ apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 3 });
    server.reset();
    server.enqueue(
      { status: 503, body: { error: { message: "busy", type: "server_error", code: null } }, headers: { "retry-after-ms": "1" } },
      { message: assistantMessage("late") },
    );
    const error = await new OpenAIChatProvider({ model: "gpt-4o", client }).generate("", [], [userMessage("hi")]).catch((e: unknown) => e);
    expect((error as APIStatusError).statusCode).toBe(503);
    expect(server.requests).toHaveLength(1);
    server.reset();
  });

  it("takes the API key and base URL from OPENAI_API_KEY and OPENAI_BASE_URL", async () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    process.env.OPENAI_API_KEY = "env-key";
    process.env.OPENAI_BASE_URL = `${server.url}/v1`;
    try {
      await body(new OpenAIChatProvider({ model: "gpt-4o" }));
      expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer env-key");
    } finally {
      for (const [name, value] of [["OPENAI_API_KEY", saved.key], ["OPENAI_BASE_URL", saved.url]] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("has the name `openai` unless told otherwise", () => {
    expect(provider().name).toBe("openai");
    expect(provider({ name: "deepseek" }).name).toBe("deepseek");
    expect(provider().modelName).toBe("deepseek-reasoner");
  });
});

describe("streams of OpenAI-compatible servers", () => {
  const chunk = (delta: JsonValue, finish: string | null = null, extra: Record<string, JsonValue> = {}) => ({
    id: "chatcmpl-x",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });

  it("routes interleaved fragments of parallel calls by index", async () => {
    server.enqueue({
      chunks: [
        chunk({ role: "assistant", tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 1, id: "b", type: "function", function: { name: "g", arguments: '{"y"' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ":2}" } }] }),
        chunk({}, "tool_calls"),
      ],
    });
    const { parts, message } = await collect(await provider().generate("", [], [userMessage("go")]));
    expect(parts.filter((p) => p.type === "tool_call_part")).toEqual([
      { type: "tool_call_part", arguments_part: '{"x":1}', index: 0 },
      { type: "tool_call_part", arguments_part: ":2}", index: 1 },
    ]);
    expect(message.tool_calls).toEqual([toolCall("a", "f", '{"x":1}'), toolCall("b", "g", '{"y":2}')]);
  });

  it("treats a repeated id and name at an open index as a fragment, and gives id-less calls a UUID", async () => {
    server.enqueue({
      chunks: [
        chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: '{"x":' } }] }),
        chunk({ tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "1}" } }] }),
        chunk({ tool_calls: [{ index: 1, type: "function", function: { name: "h", arguments: "{}" } }] }),
        chunk({}, "tool_calls"),
      ],
    });
    const { message } = await collect(await provider().generate("", [], [userMessage("go")]));
    expect(message.tool_calls).toHaveLength(2);
    expect(message.tool_calls![0]).toEqual(toolCall("a", "f", '{"x":1}'));
    expect(message.tool_calls![1]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(message.tool_calls![1]!.function).toEqual({ name: "h", arguments: "{}" });
  });

  it("maps finish reasons: length is max_tokens, unknown ones are other (raw kept)", async () => {
    for (const [raw, normalised] of [
      ["length", "max_tokens"],
      ["content_filter", "content_filter"],
      ["eos", "other"],
    ] as const) {
      server.enqueue({ chunks: [chunk({ content: "x" }), chunk({}, raw)] });
      const stream = await provider().generate("", [], [userMessage("go")]);
      await collect(stream);
      expect(stream.finishReason).toBe(normalised);
      expect(stream.rawFinishReason).toBe(raw);
    }
  });

  it("reads usage from the choice (Moonshot) and cached tokens from DeepSeek's prompt_cache_hit_tokens", async () => {
    server.enqueue({
      chunks: [
        chunk({ content: "x" }),
        {
          ...chunk({}, "stop"),
          choices: [{ index: 0, delta: {}, finish_reason: "stop", usage: { prompt_tokens: 100, completion_tokens: 3, prompt_cache_hit_tokens: 64 } }],
        },
      ],
    });
    const stream = await provider().generate("", [], [userMessage("go")]);
    await collect(stream);
    expect(stream.usage).toEqual(tokenUsage({ input_other: 36, input_cache_read: 64, output: 3 }));
    expect(stream.id).toBe("chatcmpl-x");
  });

  it("a streamed message can be iterated only once", async () => {
    server.enqueue({ message: assistantMessage("once") });
    const stream = await provider().generate("", [], [userMessage("go")]);
    await collect(stream);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/only once/);
  });

  it("a consumer that stops early releases the response", async () => {
    server.enqueue({ message: assistantMessage([textPart("a"), textPart("b"), textPart("c")]), chunkDelayMs: 50 });
    const stream = await provider().generate("", [], [userMessage("go")]);
    for await (const part of stream) {
      expect(part).toEqual(textPart("a"));
      break;
    }
    // The connection is free again: the next request is served normally.
    server.enqueue({ message: assistantMessage("next") });
    const { message } = await collect(await provider().generate("", [], [userMessage("go")]));
    expect(message.content).toEqual([textPart("next")]);
  });
});
