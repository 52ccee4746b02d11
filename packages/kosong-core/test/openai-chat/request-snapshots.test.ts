/**
 * The 8 `openai_legacy` and 13 `kimi` request snapshots of upstream kosong:
 * each input goes through OpenAIChatProvider / KimiChatProvider and the
 * official SDK to the fake server, and the captured `messages` and `tools`
 * must equal upstream's.
 *
 * One deliberate difference, for both providers: upstream (at the snapshot
 * commit) sent `"tools": []` when there are no tools; we omit the key, as
 * upstream's OpenAI provider does today (its test
 * `test_openai_legacy_omits_empty_tools`), because OpenAI rejects an empty
 * `tools` array. Those cases are checked as "no `tools` key" where the
 * snapshot says `[]`.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assistantMessage, parseMessage, type Tool } from "@kosong/core";
import { KimiChatProvider, OpenAIChatProvider } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

interface SnapshotInput {
  system: string;
  tools: Tool[];
  history: unknown[];
}

type Provider = "openai_legacy" | "kimi";

const snapshots = JSON.parse(readFileSync(fixture("kosong-request-snapshots/provider-request-snapshots.json"), "utf8")) as {
  _provider_setup: Record<Provider, { ctor: string; keys: string[] }>;
  inputs: Record<Provider, Record<string, SnapshotInput>>;
  expected: Record<Provider, Record<string, Record<string, unknown>>>;
};

const server = useFakeProviderServer();

function build(provider: Provider): OpenAIChatProvider {
  // As upstream's setup: OpenAILegacy(model='gpt-4.1', ..., stream=False) and
  // Kimi(model='kimi-k2-turbo-preview', ..., stream=False).
  return provider === "openai_legacy"
    ? new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test-key", baseURL: `${server.url}/v1`, stream: false })
    : new KimiChatProvider({ model: "kimi-k2-turbo-preview", apiKey: "test-key", baseURL: `${server.url}/v1`, stream: false });
}

async function capture(provider: Provider, name: string): Promise<Record<string, unknown>> {
  const input = snapshots.inputs[provider][name]!;
  server.enqueue({ message: assistantMessage("ok") });
  const stream = await build(provider).generate(input.system, input.tools, input.history.map((m) => parseMessage(m)));
  for await (const _ of stream) void _;
  const request = server.requests.at(-1)!;
  expect(request.path).toBe("/v1/chat/completions");
  return request.body!;
}

describe.each([
  ["openai_legacy", 8],
  ["kimi", 13],
] as const)("%s request conversion (upstream snapshots)", (provider, total) => {
  const cases = Object.keys(snapshots.inputs[provider]);

  it(`covers all ${total} upstream cases and compares ${snapshots._provider_setup[provider].keys.join(", ")}`, () => {
    expect(cases).toHaveLength(total);
    expect(snapshots._provider_setup[provider].keys).toEqual(["messages", "tools"]);
  });

  it.each(cases)("%s", async (name) => {
    const expected = snapshots.expected[provider][name]!;
    const body = await capture(provider, name);
    expect(body.messages).toEqual(expected.messages);
    if (Array.isArray(expected.tools) && expected.tools.length === 0) {
      // Deliberate difference (see the file comment): no empty `tools` array.
      expect(body).not.toHaveProperty("tools");
    } else {
      expect(body.tools).toEqual(expected.tools);
    }
    // The rest of the body, as upstream sends it with stream=False.
    expect(body.model).toBe(provider === "kimi" ? "kimi-k2-turbo-preview" : "gpt-4.1");
    expect(body.stream).toBe(false);
    expect(body).not.toHaveProperty("stream_options");
    expect(body).not.toHaveProperty("reasoning_effort");
    // Kimi sends no completion cap unless one is configured (kosong 0.55).
    expect(body).not.toHaveProperty("max_tokens");
    expect(body).not.toHaveProperty("max_completion_tokens");
  });
});
