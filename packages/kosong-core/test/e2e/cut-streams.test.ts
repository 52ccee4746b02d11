/**
 * A cut stream never runs a tool on arguments the model did not send.
 *
 * Every recorded stream of `../shared/fixtures/provider-streams/` (OpenAI
 * Chat Completions, OpenAI Responses, Anthropic Messages) is served by the
 * fake provider server and the connection is destroyed after each frame in
 * turn (after 0 frames, after 1, ..., after all of them). `step()` runs
 * through the provider and the official SDK each time, with a toolset that
 * records every call it is handed. Whatever the cut:
 *
 * - every dispatched call carries exactly the arguments of that call in the
 *   uncut stream (the model's complete ones), never a prefix, `null` or `""`;
 * - `step` either rejects with a retryable connection error, or resolves
 *   with a message whose calls are all complete.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  isRetryable,
  step,
  toolOk,
  userMessage,
  type ChatProvider,
  type ToolCall,
  type ToolResult,
  type Toolset,
} from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider, OpenAIResponsesProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";
import { fixture } from "@kosong/test-support";

const server = useFakeProviderServer({ resetBeforeEach: true });

/** A toolset that answers every call and records what it was handed (the dispatch point of `step`). */
class RecordingToolset implements Toolset {
  readonly tools = [];
  readonly handled: ToolCall[] = [];

  handle(call: ToolCall): Promise<ToolResult> {
    this.handled.push(structuredClone(call));
    return Promise.resolve({ tool_call_id: call.id, return_value: toolOk("ok") });
  }
}

const families: Array<{ folder: string; chat: boolean; provider: (url: string) => ChatProvider }> = [
  {
    folder: "openai-chat-completions",
    chat: true,
    provider: (url) => new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test", baseURL: `${url}/v1` }),
  },
  {
    folder: "openai-responses",
    chat: false,
    provider: (url) => new OpenAIResponsesProvider({ model: "gpt-5", apiKey: "test", baseURL: `${url}/v1` }),
  },
  {
    folder: "anthropic-messages",
    chat: false,
    provider: (url) => new AnthropicProvider({ model: "claude-sonnet-4-5", apiKey: "test", baseURL: url }),
  },
];

/** How many SSE frames the server sends for a fixture (as it frames them: see the fixtures README). */
function frameCount(file: string, chat: boolean): number {
  const text = readFileSync(file, "utf8");
  if (file.endsWith(".sse")) return text.split(/\r?\n\r?\n/).filter((frame) => frame.trim() !== "").length;
  const lines = text.split("\n").filter((line) => line.trim() !== "").length;
  return chat ? lines + 1 : lines;
}

async function run(provider: ChatProvider, relative: string, cutAfter?: number) {
  server.enqueue(cutAfter === undefined ? { fixture: fixture(relative) } : { fixture: fixture(relative), cutAfter });
  const toolset = new RecordingToolset();
  try {
    const result = await step(provider, "", toolset, [userMessage("go")]);
    await result.toolResults();
    return { toolset, calls: result.message.tool_calls ?? [], error: null };
  } catch (error) {
    return { toolset, calls: [], error };
  }
}

describe.each(families)("a cut $folder stream", ({ folder, chat, provider: makeProvider }) => {
  const streams = readdirSync(fixture(`provider-streams/${folder}`)).filter((name) => name.endsWith(".sse") || name.endsWith(".chunks.jsonl"));

  it.each(streams)("%s: no tool runs on arguments the model did not complete, at any frame boundary", async (name) => {
    const relative = `provider-streams/${folder}/${name}`;
    const provider = makeProvider(server.url);
    const full = await run(provider, relative);
    // The uncut stream: the model's complete calls (none when the recording itself ends in an error).
    const complete = new Map(full.calls.map((call) => [call.id, call.function.arguments]));
    const frames = frameCount(path.join(fixture(""), relative), chat);
    expect(frames).toBeGreaterThan(1);

    for (let cutAfter = 0; cutAfter <= frames; cutAfter++) {
      const { toolset, calls, error } = await run(provider, relative, cutAfter);
      const where = `${name} cut after ${cutAfter} of ${frames} frames`;
      for (const call of toolset.handled) {
        expect(complete.has(call.id), `${where}: dispatched unknown call ${call.id}`).toBe(true);
        expect(call.function.arguments, `${where}: arguments of ${call.id}`).toBe(complete.get(call.id));
      }
      if (error !== null) {
        if (full.error === null) {
          expect(APIConnectionError.isInstance(error), `${where}: ${String(error)}`).toBe(true);
          expect(isRetryable(error)).toBe(true);
        }
      } else {
        for (const call of calls) expect(call.function.arguments, `${where}: kept ${call.id}`).toBe(complete.get(call.id));
      }
    }
  });
});
