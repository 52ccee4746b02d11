/**
 * What OpenAIResponsesProvider sends beyond the upstream snapshots: thinking
 * efforts, generation options, system role, think grouping, audio, tool
 * result conversion, client options. Captured by the fake server from the
 * official SDK.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import {
  APIStatusError,
  assistantMessage,
  audioURLPart,
  ChatProviderError,
  systemMessage,
  textPart,
  thinkPart,
  toolCall,
  toolMessage,
  userMessage,
  type Message,
  type ThinkingEffort,
} from "@kosong/core";
import { OpenAIResponsesProvider, type OpenAIResponsesProviderOptions } from "@kosong/core/openai";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer();
afterEach(() => {
  vi.unstubAllEnvs();
});

function provider(options: Partial<OpenAIResponsesProviderOptions> = {}): OpenAIResponsesProvider {
  return new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

/** Sends one request and returns the captured body. */
async function send(p: OpenAIResponsesProvider, history: Message[] = [userMessage("hi")], system = "") {
  server.enqueue({ message: assistantMessage("ok") });
  await collect(await p.generate(system, [], history));
  return server.requests.at(-1)!;
}

describe("thinking", () => {
  it.each<[ThinkingEffort, string, ThinkingEffort]>([
    ["low", "low", "low"],
    ["medium", "medium", "medium"],
    ["high", "high", "high"],
    ["xhigh", "xhigh", "xhigh"],
    ["max", "xhigh", "xhigh"],
  ])("withThinking(%s) sends reasoning.effort %s with summaries and encrypted content", async (effort, wire, readBack) => {
    const p = provider().withThinking(effort);
    expect(p.thinkingEffort).toBe(readBack);
    const { body } = await send(p);
    expect(body?.reasoning).toEqual({ effort: wire, summary: "auto" });
    expect(body?.include).toEqual(["reasoning.encrypted_content"]);
  });

  it("withThinking(off) sends no reasoning options; no effort set reads as null", async () => {
    expect(provider().thinkingEffort).toBeNull();
    const off = provider().withThinking("high").withThinking("off");
    expect(off.thinkingEffort).toBe("off");
    const { body } = await send(off);
    expect(body).not.toHaveProperty("reasoning");
    expect(body).not.toHaveProperty("include");
  });

  it("copies are independent and share the client", async () => {
    const base = provider({ generation: { max_output_tokens: 512 } });
    const tuned = base.withGenerationOptions({ temperature: 0.2, top_p: 0.9 }).withThinking("low");
    expect(base.generationOptions).toEqual({ max_output_tokens: 512 });
    expect(tuned.client).toBe(base.client);
    expect(tuned.modelName).toBe("gpt-5");
    const { body } = await send(tuned);
    expect(body).toMatchObject({ max_output_tokens: 512, temperature: 0.2, top_p: 0.9, stream: true, store: false, model: "gpt-5" });
    expect(body).not.toHaveProperty("reasoning_effort");
    expect((await send(base)).body).not.toHaveProperty("temperature");
  });
});

describe("input conversion", () => {
  it("uses the developer role for OpenAI models and system for others (or as configured), mid-history too", async () => {
    const history = [userMessage("hi"), systemMessage("Be brief."), userMessage("again")];
    const roles = async (p: OpenAIResponsesProvider) =>
      ((await send(p, history, "sys")).body?.input as Array<{ role?: string }>).map((i) => i.role);
    expect(await roles(provider({ model: "gpt-4.1" }))).toEqual(["developer", "user", "developer", "user"]);
    expect(await roles(provider({ model: "o3-mini" }))).toEqual(["developer", "user", "developer", "user"]);
    expect(await roles(provider({ model: "gpt-oss-120b" }))).toEqual(["system", "user", "system", "user"]);
    expect(await roles(provider({ model: "gpt-5", systemRole: "system" }))).toEqual(["system", "user", "system", "user"]);
  });

  it("groups consecutive think parts with the same encrypted content into one reasoning item, in content order", async () => {
    const message = assistantMessage(
      [thinkPart("a", "enc_1"), thinkPart("b", "enc_1"), thinkPart("c", "enc_2"), textPart("one"), thinkPart("d"), textPart(""), textPart("two")],
      [toolCall("call_1", "now", null)],
    );
    const { body } = await send(provider(), [userMessage("q"), message]);
    expect((body?.input as unknown[]).slice(1)).toEqual([
      { type: "reasoning", summary: [{ type: "summary_text", text: "a" }, { type: "summary_text", text: "b" }], encrypted_content: "enc_1" },
      { type: "reasoning", summary: [{ type: "summary_text", text: "c" }], encrypted_content: "enc_2" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "one", annotations: [] }] },
      { type: "reasoning", summary: [{ type: "summary_text", text: "d" }], encrypted_content: null },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "two", annotations: [] }] },
      // A call without arguments is sent with `{}`.
      { type: "function_call", call_id: "call_1", name: "now", arguments: "{}" },
    ]);
  });

  it("sends audio as input files (mp3/wav data URIs with a file name, URLs by reference) and drops what the API cannot take", async () => {
    const user = userMessage([
      audioURLPart("data:audio/mpeg;base64,AAAA"),
      audioURLPart("data:audio/wav;base64,BBBB"),
      audioURLPart("data:audio/ogg;base64,CCCC"),
      audioURLPart("https://example.com/a.mp3"),
    ]);
    const tool = toolMessage("call_1", [textPart("heard"), audioURLPart("data:audio/ogg;base64,DDDD"), audioURLPart("ftp://x")]);
    const history = [user, assistantMessage("", [toolCall("call_1", "listen", {})]), tool];
    const input = (await send(provider(), history)).body?.input as unknown[];
    expect(input[0]).toEqual({
      type: "message",
      role: "user",
      content: [
        { type: "input_file", file_data: "AAAA", filename: "inline.mp3" },
        { type: "input_file", file_data: "BBBB", filename: "inline.wav" },
        { type: "input_file", file_url: "https://example.com/a.mp3" },
      ],
    });
    expect(input.at(-1)).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: [{ type: "input_text", text: "heard" }, { type: "input_file", file_data: "DDDD" }],
    });
  });

  it("toolMessageConversion extract_text sends a tool result as its text joined by newlines", async () => {
    const history = [
      userMessage("q"),
      assistantMessage("", [toolCall("call_1", "ls", {})]),
      toolMessage("call_1", [textPart("a.txt"), textPart("b.txt")]),
    ];
    const input = (await send(provider({ toolMessageConversion: "extract_text" }), history)).body?.input as unknown[];
    expect(input.at(-1)).toEqual({ type: "function_call_output", call_id: "call_1", output: "a.txt\nb.txt" });
  });
});

describe("client", () => {
  it("sends the API key, default headers and the request to baseURL; the SDK never retries", async () => {
    server.enqueue({ status: 500, body: { error: { message: "boom", type: "server_error", param: null, code: null } } });
    const p = provider({ apiKey: "sk-secret", defaultHeaders: { "x-team": "kosong" } });
    const before = server.requests.length;
    await expect(p.generate("", [], [userMessage("hi")])).rejects.toMatchObject({ statusCode: 500 });
    // One request only: retrying is the caller's job.
    expect(server.requests.length - before).toBe(1);
    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe("Bearer sk-secret");
    expect(request.headers["x-team"]).toBe("kosong");
    server.enqueue({ message: assistantMessage("ok") });
    expect((await collect(await p.generate("", [], [userMessage("hi")]))).message.content).toEqual([textPart("ok")]);
  });

  it("reads OPENAI_API_KEY and OPENAI_BASE_URL, and says clearly when no key is configured", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-env");
    vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
    const { headers } = await send(new OpenAIResponsesProvider({ model: "gpt-5" }));
    expect(headers.authorization).toBe("Bearer sk-env");
    vi.stubEnv("OPENAI_API_KEY", "");
    expect(() => new OpenAIResponsesProvider({ model: "gpt-5" })).toThrow(ChatProviderError);
    expect(() => new OpenAIResponsesProvider({ model: "gpt-5" })).toThrow(/OPENAI_API_KEY/);
  });

  it("sends one request with a caller-supplied client that would retry itself", async () => {
    const client = new OpenAI({ apiKey: "k", baseURL: `${server.url}/v1`, maxRetries: 3 });
    server.reset();
    server.enqueue(
      { status: 503, body: { error: { message: "busy", type: "server_error", code: null } }, headers: { "retry-after-ms": "1" } },
      { message: assistantMessage("late") },
    );
    const error = await new OpenAIResponsesProvider({ model: "gpt-5", client }).generate("", [], [userMessage("hi")]).catch((e: unknown) => e);
    expect((error as APIStatusError).statusCode).toBe(503);
    expect(server.requests).toHaveLength(1);
    server.reset();
  });

  it("uses a caller-supplied client", async () => {
    const client = new OpenAI({ apiKey: "sk-own", baseURL: `${server.url}/custom/v1`, maxRetries: 0 });
    const p = new OpenAIResponsesProvider({ model: "gpt-5", client });
    expect(p.client).toBe(client);
    const request = await send(p);
    expect(request.path).toBe("/custom/v1/responses");
    expect(request.headers.authorization).toBe("Bearer sk-own");
  });
});
