/**
 * Every recorded OpenAI Responses fixture replayed from the fake server
 * through the official SDK and OpenAIResponsesProvider: message, usage
 * (cached tokens included), finish reason and errors.
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  APIContextOverflowError,
  APIQuotaExhaustedError,
  APIStatusError,
  isRetryable,
  tokenUsage,
  toolMessage,
  userMessage,
  type Message,
  type Tool,
} from "@kosong/core";
import { OpenAIResponsesProvider, type OpenAIResponsesProviderOptions } from "@kosong/core/openai";
import { fixture } from "@kosong/test-support";
import { collect } from "../helpers/collect.js";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const dir = "provider-streams/openai-responses";
const covered = new Set<string>();

interface RecordedItem {
  type: string;
  encrypted_content?: string;
  summary?: Array<{ text: string }>;
  content?: Array<{ type: string; text: string }>;
}

/**
 * The output items of a recording: a non-stream body's `output`, or the items
 * of a stream's `response.output_item.done` events (each snapshot of an item
 * carries a freshly encrypted `encrypted_content`; the done one is what
 * upstream keeps).
 */
function recordedItems(file: string): RecordedItem[] {
  const text = readFileSync(fixture(`${dir}/${file}`), "utf8");
  if (file.endsWith(".json")) return (JSON.parse(text) as { output: RecordedItem[] }).output;
  const events = text
    .split("\n")
    .filter((l) => l.trim() !== "" && (file.endsWith(".jsonl") || l.startsWith("data: ")))
    .map((l) => JSON.parse(l.replace(/^data: /, "")) as { type: string; item?: RecordedItem });
  return events.filter((e) => e.type === "response.output_item.done").map((e) => e.item!);
}

const server = useFakeProviderServer();

function provider(options: Partial<OpenAIResponsesProviderOptions> = {}): OpenAIResponsesProvider {
  return new OpenAIResponsesProvider({ model: "gpt-5.1-codex-max", apiKey: "test-key", baseURL: `${server.url}/v1`, ...options });
}

async function replay(file: string, options: Partial<OpenAIResponsesProviderOptions> = {}, history: Message[] = [userMessage("hi")]) {
  covered.add(file);
  server.enqueue({ fixture: fixture(`${dir}/${file}`) });
  return collect(await provider(options).generate("", [], history));
}

async function replayError(file: string, extra: { headers?: Record<string, string> } = {}): Promise<unknown> {
  covered.add(file);
  server.enqueue({ fixture: fixture(`${dir}/${file}`), ...extra });
  try {
    await collect(await provider().generate("", [], [userMessage("hi")]));
  } catch (error) {
    return error;
  }
  throw new Error(`${file}: no error`);
}

const calculator: Tool = {
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string" } } },
};

describe("streamed responses", () => {
  it("stream-function-call.sse: the call id is the call_id, arguments streamed, usage and finish reason", async () => {
    const { message, stream } = await replay("stream-function-call.sse");
    expect(message).toEqual({
      role: "assistant",
      content: [],
      tool_calls: [{ type: "function", id: "call_kL0PCQV7M2WMoVX8V8OtYSAL", function: { name: "get_capital", arguments: '{"country":"France"}' } }],
    });
    expect(stream.id).toBe("resp_67e554a155508191900ee113293c4c830794405d35281ae2");
    expect(stream.usage).toEqual(tokenUsage({ input_other: 255, output: 16 }));
    expect(stream.finishReason).toBe("tool_calls");
    expect(stream.rawFinishReason).toBe("completed");
  });

  it("stream-text-after-function-output.sse: text deltas", async () => {
    const { message, parts, stream } = await replay("stream-text-after-function-output.sse");
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "The capital of France is Paris." }] });
    expect(parts).toHaveLength(7);
    expect(stream.usage).toEqual(tokenUsage({ input_other: 278, output: 9 }));
    expect(stream.finishReason).toBe("stop");
    expect(stream.id).toBe("resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed");
  });

  it("stream-reasoning-encrypted-function-call.sse: encrypted reasoning without summary is kept as a signed empty think", async () => {
    const file = "stream-reasoning-encrypted-function-call.sse";
    const { message, stream } = await replay(file);
    // The encrypted content of output_item.done, not the snapshot of output_item.added.
    const encrypted = recordedItems(file)[0]!.encrypted_content!;
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "think", think: "", encrypted }],
      tool_calls: [{ type: "function", id: "call_CWXgs68YprAjp6t0371hiPOI", function: { name: "final_result", arguments: '{"result":6666}' } }],
    });
    expect(stream.usage).toEqual(tokenUsage({ input_other: 53, output: 469 }));
    expect(stream.finishReason).toBe("tool_calls");
  });

  it("stream-reasoning-summary-tool-loop turn1..turn4: a 4-step tool loop replays reasoning and calls back to the API", async () => {
    const p = provider().withThinking("high");
    const history: Message[] = [userMessage("What is (12 + 7) * 3 * 10? Use the calculator for each step.")];
    const expected = [
      { call: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", args: '{"a":12,"b":7,"op":"add"}', result: "19", usage: [134, 28] },
      { call: "call_Q6pW65MUgW9vF59BmItYGos3", args: '{"a":19,"b":3,"op":"multiply"}', result: "57", usage: [221, 26] },
      { call: "call_Zl5vIMnD7dVAjgU6FkhmiCZh", args: '{"a":57,"b":10,"op":"multiply"}', result: "570", usage: [260, 26] },
    ];
    for (const [turn, step] of expected.entries()) {
      const file = `stream-reasoning-summary-tool-loop.turn${turn + 1}.chunks.jsonl`;
      covered.add(file);
      server.enqueue({ fixture: fixture(`${dir}/${file}`) });
      const { message, stream } = await collect(await p.generate("You are a calculator agent.", [calculator], history));
      expect(message.tool_calls).toEqual([{ type: "function", id: step.call, function: { name: "calculator", arguments: step.args } }]);
      expect(stream.usage).toEqual(tokenUsage({ input_other: step.usage[0], output: step.usage[1] }));
      expect(stream.finishReason).toBe("tool_calls");
      if (turn === 0) {
        const reasoning = recordedItems(file)[0]!;
        expect(message.content).toEqual([
          { type: "think", think: reasoning.summary![0]!.text, encrypted: reasoning.encrypted_content },
        ]);
      } else {
        expect(message.content).toEqual([]);
      }
      history.push(message, toolMessage(step.call, step.result));
    }
    covered.add("stream-reasoning-summary-tool-loop.turn4.chunks.jsonl");
    server.enqueue({ fixture: fixture(`${dir}/stream-reasoning-summary-tool-loop.turn4.chunks.jsonl`) });
    const last = await collect(await p.generate("You are a calculator agent.", [calculator], history));
    expect(last.message).toEqual({ role: "assistant", content: [{ type: "text", text: "The final result is **570**." }] });
    expect(last.stream.finishReason).toBe("stop");
    expect(last.stream.usage).toEqual(tokenUsage({ input_other: 299, output: 12 }));

    // What the 4th request sent back: the signed reasoning, every call with its call_id and every output.
    const body = server.requests.at(-1)!.body!;
    const turn1 = recordedItems("stream-reasoning-summary-tool-loop.turn1.chunks.jsonl")[0]!;
    expect(body.reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(body.include).toEqual(["reasoning.encrypted_content"]);
    expect(body.store).toBe(false);
    expect(body.input).toEqual([
      { role: "developer", content: "You are a calculator agent." },
      { type: "message", role: "user", content: [{ type: "input_text", text: "What is (12 + 7) * 3 * 10? Use the calculator for each step." }] },
      { type: "reasoning", summary: [{ type: "summary_text", text: turn1.summary![0]!.text }], encrypted_content: turn1.encrypted_content },
      ...expected.flatMap((step) => [
        { type: "function_call", call_id: step.call, name: "calculator", arguments: step.args },
        { type: "function_call_output", call_id: step.call, output: [{ type: "input_text", text: step.result }] },
      ]),
    ]);
  });
});

describe("non-stream responses", () => {
  it("nonstream-parallel-function-calls.json: two calls, all-zero usage", async () => {
    const { message, stream } = await replay("nonstream-parallel-function-calls.json", { stream: false });
    expect(message.tool_calls).toEqual([
      { type: "function", id: "call_LWVp74L5HaH2KNvgVz9PJsrj", function: { name: "get_location", arguments: '{"loc_name":"Londos"}' } },
      { type: "function", id: "call_YnRAWeTyxI91m5uNa5bxXwVO", function: { name: "get_location", arguments: '{"loc_name":"London"}' } },
    ]);
    expect(stream.usage).toEqual(tokenUsage());
    expect(stream.finishReason).toBe("tool_calls");
    expect(stream.id).toBe("resp_67e547c48c9481918c5c4394464ce0c60ae6111e84dd5c08");
  });

  it("nonstream-reasoning-summary.json: summary as a signed think part, then the text", async () => {
    const file = "nonstream-reasoning-summary.json";
    const { message, stream } = await replay(file, { stream: false });
    const [reasoning, text] = recordedItems(file);
    expect(message).toEqual({
      role: "assistant",
      content: [
        { type: "think", think: reasoning!.summary![0]!.text, encrypted: reasoning!.encrypted_content },
        { type: "text", text: text!.content![0]!.text },
      ],
    });
    expect(stream.usage).toEqual(tokenUsage({ input_other: 34, output: 226 }));
    expect(stream.finishReason).toBe("stop");
  });

  it("nonstream-prompt-cache-hit.json: cached tokens are cache reads", async () => {
    const { message, stream } = await replay("nonstream-prompt-cache-hit.json", { stream: false });
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "OK" }] });
    expect(stream.usage).toEqual(tokenUsage({ input_other: 8, input_cache_read: 4012, output: 5 }));
  });
});

describe("errors", () => {
  it("stream-error-event-insufficient-quota.chunks.jsonl: an error event in a 200 stream is quota exhaustion, not retryable", async () => {
    const error = await replayError("stream-error-event-insufficient-quota.chunks.jsonl", { headers: { "x-request-id": "req_quota" } });
    expect(APIQuotaExhaustedError.isInstance(error)).toBe(true);
    const e = error as APIQuotaExhaustedError;
    expect(e.statusCode).toBe(429);
    expect(e.errorCode).toBe("insufficient_quota");
    expect(e.requestId).toBe("req_quota");
    expect(e.message).toContain("You exceeded your current quota");
    expect(isRetryable(e)).toBe(false);
  });

  it("error-429-insufficient-quota.json: HTTP 429 quota is not rate limiting", async () => {
    const error = await replayError("error-429-insufficient-quota.json");
    expect(APIQuotaExhaustedError.isInstance(error)).toBe(true);
    expect((error as APIStatusError).statusCode).toBe(429);
    expect(isRetryable(error)).toBe(false);
  });

  it("error-400-invalid-parameter-value.json: a 400 to a stream request is a plain status error", async () => {
    const error = await replayError("error-400-invalid-parameter-value.json");
    expect(APIStatusError.isInstance(error)).toBe(true);
    expect(APIContextOverflowError.isInstance(error)).toBe(false);
    const e = error as APIStatusError;
    expect(e.statusCode).toBe(400);
    expect(e.errorCode).toBe("decimal_below_min_value");
    expect(e.errorType).toBe("invalid_request_error");
    expect(isRetryable(e)).toBe(false);
  });
});

it("covers every response fixture of provider-streams/openai-responses", () => {
  const files = readdirSync(fixture(dir)).filter((f) => !f.startsWith("_") && !f.endsWith(".md"));
  expect([...covered].sort()).toEqual(files.sort());
});
