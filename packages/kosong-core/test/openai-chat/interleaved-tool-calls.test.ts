/**
 * Parallel tool calls whose argument fragments interleave (a fragment for
 * call 0 after call 1 has started, as vLLM and some routed models stream
 * them) are routed by `index` and merged; each call runs only once it can no
 * longer grow. Calls streamed one after another still start early.
 *
 * Frames follow the chunk object of the OpenAI API reference ("The chat
 * completion chunk object": `choices[].delta.tool_calls[]` with `index`,
 * `id`, `type`, `function.name`, `function.arguments`), served by the fake
 * provider server to the official SDK.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, SimpleToolset, step, toolCall, userMessage, type StreamedMessagePart } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ resetBeforeEach: true });

type ToolDelta = { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } };

function frame(delta: object, finish: string | null = null): string {
  const chunk = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

const start = (index: number, id: string, args = ""): ToolDelta => ({ index, id, type: "function", function: { name: "read", arguments: args } });
const more = (index: number, args: string): ToolDelta => ({ index, function: { arguments: args } });
const calls = (...deltas: ToolDelta[]): string => frame({ tool_calls: deltas });

function recordingRun(frames: string[]) {
  const log: string[] = [];
  const read = defineTool({
    name: "read",
    description: "Read a file.",
    parameters: z.object({ path: z.string() }),
    execute: ({ path }, { toolCallId }) => {
      log.push(`run ${toolCallId} ${path}`);
      return "ok";
    },
  });
  const onMessagePart = (part: StreamedMessagePart): void => {
    if (part.type === "function") log.push(`start ${part.id}`);
    else if (part.type === "tool_call_part") log.push(`fragment #${part.index}`);
  };
  server.enqueue({ sse: [...frames, frame({}, "tool_calls"), "data: [DONE]\n\n"] });
  const provider = new OpenAIChatProvider({ model: "m", apiKey: "test", baseURL: `${server.url}/v1` });
  return { log, result: step(provider, "", new SimpleToolset([read]), [userMessage("read a and b")], { onMessagePart }) };
}

describe("interleaved parallel tool calls (OpenAI Chat Completions)", () => {
  it("routes fragments by index and runs each call on its whole arguments", async () => {
    const { log, result } = recordingRun([
      calls(start(0, "call_a", '{"pa')),
      calls(start(1, "call_b", '{"path": "b')),
      calls(more(0, 'th": "a.')),
      calls(more(1, '.txt"}')),
      calls(more(0, 'txt"}')),
    ]);
    const done = await result;
    expect(done.message.tool_calls).toEqual([toolCall("call_a", "read", `{"path": "a.txt"}`), toolCall("call_b", "read", `{"path": "b.txt"}`)]);
    expect((await done.toolResults()).map((r) => r.return_value.is_error)).toEqual([false, false]);
    // Neither call ran before its last fragment: no tool ever saw half its arguments.
    expect(log.indexOf("run call_b b.txt")).toBeGreaterThan(log.lastIndexOf("fragment #1"));
    expect(log.indexOf("run call_a a.txt")).toBeGreaterThan(log.lastIndexOf("fragment #0"));
    expect(log.filter((line) => line.startsWith("run"))).toHaveLength(2);
  });

  it("still starts a call early when the calls come one after another", async () => {
    const { log, result } = recordingRun([
      calls(start(0, "call_a")),
      calls(more(0, '{"path": "a.txt"}')),
      calls(start(1, "call_b")),
      calls(more(1, '{"path": "b.txt"}')),
    ]);
    await (await result).toolResults();
    // call_a runs as soon as call_b starts, before call_b's arguments arrive.
    expect(log).toEqual(["start call_a", "fragment #0", "start call_b", "run call_a a.txt", "fragment #1", "run call_b b.txt"]);
  });
});
