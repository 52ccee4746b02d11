/**
 * KimiChatProvider, the Kimi preset of the Chat Completions provider, with
 * kosong's `kimi` rules, through the official SDK against the fake server.
 */
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  ChatProviderError,
  textPart,
  thinkPart,
  tokenUsage,
  userMessage,
  type JsonValue,
  type Tool,
} from "@kosong/core";
import { KIMI_DEFAULT_BASE_URL, KimiChatProvider, type KimiChatProviderOptions } from "@kosong/core/openai";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

function kimi(options: Partial<KimiChatProviderOptions> = {}): KimiChatProvider {
  return new KimiChatProvider({ model: "kimi-k2-turbo-preview", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

async function body(p: KimiChatProvider, tools: Tool[] = []) {
  server.enqueue({ message: assistantMessage("ok") });
  await collect(await p.generate("", tools, [userMessage("Think")]));
  return server.requests.at(-1)!.body!;
}

function withEnv(vars: Record<string, string | undefined>, run: () => void | Promise<void>) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  return Promise.resolve()
    .then(run)
    .finally(() => apply(saved));
}

describe("endpoint", () => {
  it("is named kimi, defaults to KIMI_API_KEY and KIMI_BASE_URL", async () => {
    await withEnv({ KIMI_API_KEY: "env-kimi-key", KIMI_BASE_URL: `${server.url}/v1` }, async () => {
      const p = new KimiChatProvider({ model: "kimi-k2-turbo-preview" });
      expect(p.name).toBe("kimi");
      await body(p);
      expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer env-kimi-key");
    });
  });

  it("defaults the base URL to Moonshot's", async () => {
    await withEnv({ KIMI_BASE_URL: undefined }, () => {
      const p = new KimiChatProvider({ model: "kimi-k2-turbo-preview", apiKey: "k" });
      expect(KIMI_DEFAULT_BASE_URL).toBe("https://api.moonshot.ai/v1");
      expect(p.client.baseURL).toBe(KIMI_DEFAULT_BASE_URL);
    });
  });

  it("without a key, fails at construction with a clear ChatProviderError", async () => {
    await withEnv({ KIMI_API_KEY: undefined }, () => {
      expect(() => new KimiChatProvider({ model: "kimi-k2-turbo-preview" })).toThrow(ChatProviderError);
      expect(() => new KimiChatProvider({ model: "kimi-k2-turbo-preview" })).toThrow(/KIMI_API_KEY/);
    });
  });
});

describe("thinking", () => {
  it("withThinking switches thinking.type and sends no legacy reasoning_effort (kosong 0.55)", async () => {
    const on = kimi().withThinking("high");
    expect(on.thinkingEffort).toBe("high");
    const sent = await body(on);
    expect(sent.thinking).toEqual({ type: "enabled" });
    expect(sent).not.toHaveProperty("reasoning_effort");
    expect((await body(kimi().withThinking("off"))).thinking).toEqual({ type: "disabled" });
    expect(kimi().withThinking("off").thinkingEffort).toBe("off");
    expect(kimi().thinkingEffort).toBeNull();
  });

  it("clamps xhigh and max to high (Kimi has no higher level)", () => {
    expect(kimi().withThinking("xhigh").thinkingEffort).toBe("high");
    expect(kimi().withThinking("max").thinkingEffort).toBe("high");
    expect(kimi().withThinking("low").thinkingEffort).toBe("low");
  });

  it("withExtraBody merges thinking field by field, other keys last-writer-wins", async () => {
    const p = kimi()
      .withThinking("high")
      .withExtraBody({ thinking: { keep: "all" } })
      .withExtraBody({ custom: { a: 1 } })
      .withExtraBody({ custom: { b: 2 } });
    expect(await body(p)).toMatchObject({ thinking: { type: "enabled", keep: "all" }, custom: { b: 2 } });
    expect((await body(kimi().withThinking("high").withExtraBody({ thinking: {} }))).thinking).toEqual({ type: "enabled" });
    expect((await body(kimi().withExtraBody({ thinking: {} }).withThinking("high"))).thinking).toEqual({ type: "enabled" });
  });

  it("passes an explicit legacy reasoning_effort through and reads it back", async () => {
    const p = kimi({ generation: { reasoning_effort: "medium" } });
    expect(p.thinkingEffort).toBe("medium");
    expect((await body(p)).reasoning_effort).toBe("medium");
  });

  it("sends no reasoning_effort of its own when the history has think parts", async () => {
    server.enqueue({ message: assistantMessage("ok") });
    await collect(await kimi().generate("", [], [userMessage("a"), assistantMessage([thinkPart("t"), textPart("b")]), userMessage("c")]));
    expect(server.requests.at(-1)!.body).not.toHaveProperty("reasoning_effort");
  });
});

describe("generation options", () => {
  it("sends max_tokens as max_completion_tokens, and no cap by default", async () => {
    expect(await body(kimi())).not.toHaveProperty("max_completion_tokens");
    const sent = await body(kimi({ generation: { temperature: 0.7, max_tokens: 2048 } }));
    expect(sent).toMatchObject({ temperature: 0.7, max_completion_tokens: 2048 });
    expect(sent).not.toHaveProperty("max_tokens");
    const both = await body(kimi().withGenerationOptions({ max_tokens: 10, max_completion_tokens: 20 }));
    expect(both.max_completion_tokens).toBe(20);
    expect(both).not.toHaveProperty("max_tokens");
  });
});

describe("tools", () => {
  it("normalises properties without a type (MCP schemas Moonshot rejects), leaving the tool untouched", async () => {
    const parameters = {
      type: "object",
      properties: {
        mode: { enum: ["start", "middle", "end"], description: "where to cut" },
        level: { enum: [1, 2, 3] },
        ratio: { enum: [1, 2.5] },
        fixed: { const: true },
        anything: { description: "no hint at all" },
        typed: { type: "integer" },
        union: { anyOf: [{ type: "string" }, { type: "null" }] },
        nested: { type: "array", items: { type: "object", properties: { tag: { enum: ["a", null] } } } },
      },
    } satisfies { [key: string]: JsonValue };
    const snapshot = JSON.stringify(parameters);
    const sent = await body(kimi(), [{ name: "cut", description: "Cut.", parameters }]);
    const props = ((sent.tools as Array<{ function: { parameters: { properties: Record<string, JsonValue> } } }>)[0]!.function
      .parameters.properties);
    expect(props).toEqual({
      mode: { type: "string", enum: ["start", "middle", "end"], description: "where to cut" },
      level: { type: "integer", enum: [1, 2, 3] },
      ratio: { type: "number", enum: [1, 2.5] },
      fixed: { type: "boolean", const: true },
      anything: { type: "string", description: "no hint at all" },
      typed: { type: "integer" },
      union: { anyOf: [{ type: "string" }, { type: "null" }] },
      nested: { type: "array", items: { type: "object", properties: { tag: { type: ["string", "null"], enum: ["a", null] } } } },
    });
    expect(JSON.stringify(parameters)).toBe(snapshot);
  });

  it("sends `$` tools as Moonshot builtin functions", async () => {
    const sent = await body(kimi(), [{ name: "$web_search", description: "Search", parameters: { type: "object", properties: {} } }]);
    expect(sent.tools).toEqual([{ type: "builtin_function", function: { name: "$web_search" } }]);
  });
});

describe("responses", () => {
  const chunk = (delta: JsonValue, finish: string | null = null) => ({
    id: "chatcmpl-kimi",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  it("reads reasoning_content into think parts, keeping one empty think part for an empty reasoning", async () => {
    server.enqueue({
      chunks: [
        chunk({ role: "assistant", reasoning_content: "" }),
        chunk({ reasoning_content: "" }),
        chunk({ content: "Hi" }),
        chunk({ reasoning_content: "", content: "!" }),
        chunk({}, "stop"),
      ],
    });
    const { parts } = await collect(await kimi().generate("", [], [userMessage("hi")]));
    expect(parts).toEqual([thinkPart(""), textPart("Hi"), textPart("!")]);

    server.enqueue({ message: assistantMessage([thinkPart("Let me "), thinkPart("see."), textPart("Yes")]) });
    const { message } = await collect(await kimi().generate("", [], [userMessage("hi")]));
    expect(message.content).toEqual([thinkPart("Let me see."), textPart("Yes")]);
  });

  it("keeps an empty reasoning_content of a non-stream response as an empty think part", async () => {
    server.enqueue({ message: assistantMessage([thinkPart(""), textPart("Yes")]) });
    const { message } = await collect(await kimi({ stream: false }).generate("", [], [userMessage("hi")]));
    expect(message.content).toEqual([thinkPart(""), textPart("Yes")]);
  });

  it("reads the stream usage from inside the choice, with Moonshot's top-level cached_tokens", async () => {
    server.enqueue({
      chunks: [
        chunk({ content: "ok" }),
        {
          id: "chatcmpl-kimi",
          object: "chat.completion.chunk",
          choices: [
            { index: 0, delta: {}, finish_reason: "stop", usage: { prompt_tokens: 120, completion_tokens: 2, total_tokens: 122, cached_tokens: 100 } },
          ],
        },
      ],
    });
    const stream = await kimi().generate("", [], [userMessage("hi")]);
    await collect(stream);
    expect(stream.usage).toEqual(tokenUsage({ input_other: 20, input_cache_read: 100, output: 2 }));
    expect(stream.id).toBe("chatcmpl-kimi");
  });
});
