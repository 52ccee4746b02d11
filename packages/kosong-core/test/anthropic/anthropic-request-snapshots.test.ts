/**
 * The 12 `anthropic` request-conversion cases of upstream kosong
 * (`kosong-request-snapshots`), run through AnthropicProvider and the
 * official SDK against the fake server: the captured `messages`, `system` and
 * `tools` must equal what upstream sends.
 */
import { readFileSync } from "node:fs";
import { assistantMessage, parseMessage, type JsonSchema, type Message, type Tool } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { fixture } from "@kosong/test-support";
import { anthropicProvider, collectParts } from "./helpers.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

interface SnapshotCase {
  system: string;
  tools: Array<{ name: string; description: string; parameters: JsonSchema }>;
  history: unknown[];
}

interface Snapshots {
  _provider_setup: { anthropic: { keys: string[] } };
  inputs: { anthropic: Record<string, SnapshotCase> };
  expected: { anthropic: Record<string, Record<string, unknown>> };
}

const snapshots = JSON.parse(readFileSync(fixture("kosong-request-snapshots/provider-request-snapshots.json"), "utf8")) as Snapshots;
const keys = snapshots._provider_setup.anthropic.keys;
const cases = Object.entries(snapshots.inputs.anthropic);

const server = useFakeProviderServer();

type Block = Record<string, unknown>;

/**
 * Deliberate differences from upstream, with the reason: upstream sends a
 * stored redacted block (a think part with empty text and the data as
 * `encrypted`) back as a `thinking` block, which the API rejects; it goes
 * back unmodified, as `redacted_thinking` with its `data` (issue 8, item 6).
 */
function expectedFor(name: string): Record<string, unknown> {
  const expected = snapshots.expected.anthropic[name]!;
  if (name !== "redacted_thinking") return expected;
  const messages = (expected.messages as Array<{ role: string; content: Block[] | string }>).map((message) => ({
    ...message,
    content: Array.isArray(message.content)
      ? message.content.map((block) =>
          block.type === "thinking" && block.thinking === "" ? { type: "redacted_thinking", data: block.signature } : block,
        )
      : message.content,
  }));
  return { ...expected, messages };
}

describe("anthropic request snapshots (upstream kosong)", () => {
  it("covers the 12 upstream cases", () => {
    expect(cases).toHaveLength(12);
  });

  it.each(cases)("%s", async (name, input) => {
    // As upstream's snapshot setup: claude-sonnet-4-20250514, max_tokens 1024, no streaming.
    const provider = anthropicProvider(server, { model: "claude-sonnet-4-20250514", maxTokens: 1024, stream: false });
    const history: Message[] = input.history.map((m) => parseMessage(m));
    const tools: Tool[] = input.tools;
    server.enqueue({ message: assistantMessage("ok") });
    await collectParts(await provider.generate(input.system, tools, history));

    const body = server.requests.at(-1)!.body!;
    const captured: Record<string, unknown> = {};
    for (const key of keys) if (key in body) captured[key] = body[key];
    expect(captured).toEqual(expectedFor(name));
    expect(body.model).toBe("claude-sonnet-4-20250514");
    expect(body.max_tokens).toBe(1024);
    expect(body.stream).toBe(false);
  });
});
