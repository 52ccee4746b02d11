/**
 * Streaming a long response from the fake provider server (127.0.0.1, real
 * HTTP, real SDKs), three ways in one run and interleaved:
 *
 * - floor: raw `fetch` + a minimal SSE split + `JSON.parse` per frame;
 * - SDK: the official SDK's own stream iteration (`create({stream: true})`, for-await);
 * - ours: our provider + `generate()`, merging every part into one message.
 *
 * Once for an OpenAI Chat Completions stream of 10,000 content chunks and
 * once for an Anthropic Messages stream of 10,000 text deltas. Rows: ours vs
 * the SDK iteration (goal 1.05), and the SDK vs the raw floor (informational).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { extractText, generate, userMessage } from "@kosong/core";
import type { ChatProvider } from "@kosong/core";
import { AnthropicProvider } from "@kosong/core/anthropic";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { startFakeProviderServer } from "@kosong/core/testing";
import type { FakeProviderServer } from "@kosong/core/testing";
import type { BenchOptions, BenchRow } from "../bench-types.ts";
import { median, rowFromSamples } from "../measure.ts";

const CHUNKS = 10_000;

/** The text every way must reassemble: CHUNKS short tokens. */
function token(i: number): string {
  return ` w${i % 97}`;
}

function expectedText(): string {
  let text = "";
  for (let i = 0; i < CHUNKS; i++) text += token(i);
  return text;
}

/** A Chat Completions stream shaped like the recorded ones (every chunk repeats id, model, fingerprint, usage: null, obfuscation). */
function openAIFrames(): string[] {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1782955818,
      model: "gpt-4o-mini-2024-07-18",
      service_tier: "default",
      system_fingerprint: "fp_d0469e1700",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      usage: null,
      obfuscation: "HM7mrU",
    })}\n\n`;
  const frames = [chunk({ role: "assistant", content: "", refusal: null }, null)];
  for (let i = 0; i < CHUNKS; i++) frames.push(chunk({ content: token(i) }, null));
  frames.push(chunk({}, "stop"));
  frames.push(
    `data: ${JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1782955818,
      model: "gpt-4o-mini-2024-07-18",
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: CHUNKS + 12, prompt_tokens_details: { cached_tokens: 0 } },
    })}\n\n`,
  );
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** An Anthropic Messages stream shaped like the recorded ones (`event:` lines, one text block). */
function anthropicFrames(): string[] {
  const frame = (event: { type: string; [key: string]: unknown }) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
  const frames = [
    frame({
      type: "message_start",
      message: {
        model: "claude-haiku-4-5-20250929",
        id: "msg_bench",
        type: "message",
        role: "assistant",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: "standard" },
      },
    }),
    frame({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    'event: ping\ndata: {"type": "ping"}\n\n',
  ];
  for (let i = 0; i < CHUNKS; i++) {
    frames.push(frame({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: token(i) } }));
  }
  frames.push(frame({ type: "content_block_stop", index: 0 }));
  frames.push(
    frame({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { input_tokens: 17, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: CHUNKS },
    }),
  );
  frames.push(frame({ type: "message_stop" }));
  return frames;
}

/** Raw fetch + minimal SSE parse: the floor any client pays for HTTP, decoding and JSON. */
async function rawStream(url: string, body: object, textOf: (event: Record<string, unknown>) => string | undefined): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.body) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let start = 0;
    for (let end = buffer.indexOf("\n\n", start); end !== -1; end = buffer.indexOf("\n\n", start)) {
      const frame = buffer.slice(start, end);
      start = end + 2;
      const at = frame.indexOf("data: ");
      if (at === -1) continue;
      const data = frame.slice(at + 6);
      if (data === "[DONE]") continue;
      const piece = textOf(JSON.parse(data) as Record<string, unknown>);
      if (piece !== undefined) text += piece;
    }
    buffer = buffer.slice(start);
  }
  return text;
}

function openAIText(event: Record<string, unknown>): string | undefined {
  const choices = event.choices as Array<{ delta?: { content?: string | null } }> | undefined;
  return choices?.[0]?.delta?.content ?? undefined;
}

function anthropicText(event: Record<string, unknown>): string | undefined {
  if (event.type !== "content_block_delta") return undefined;
  return (event.delta as { text?: string }).text;
}

async function viaGenerate(provider: ChatProvider): Promise<string> {
  const result = await generate(provider, "You are a benchmark.", [], [userMessage("stream please")]);
  return extractText(result.message);
}

interface Way {
  name: string;
  run(): Promise<string>;
}

/** Per-way samples of interleaved rounds; index r of every list is the same round. */
type Samples = number[][];

/** Runs every way `rounds` times, interleaved in a rotating order, after one warm-up each. */
async function measure(server: FakeProviderServer, frames: string[], ways: Way[], rounds: number, expected: string): Promise<Samples> {
  // One pre-joined body: the server's share of each run is a single write, the same for every way.
  const body = [frames.join("")];
  const times: Samples = ways.map(() => []);
  for (let round = -1; round < rounds; round++) {
    for (let k = 0; k < ways.length; k++) {
      const index = (k + Math.max(round, 0)) % ways.length;
      const way = ways[index]!;
      server.enqueue({ sse: body });
      const started = performance.now();
      const text = await way.run();
      const elapsed = performance.now() - started;
      if (text !== expected) throw new Error(`provider-stream: ${way.name} reassembled ${text.length} chars, expected ${expected.length}`);
      if (round >= 0) times[index]!.push(elapsed);
    }
  }
  return times;
}

function rows(api: string, names: [string, string, string], [raw, sdk, ours]: Samples, rounds: number): BenchRow[] {
  const ms = (values: number[]) => `${median(values).toFixed(1)} ms`;
  const note = `${CHUNKS} chunks, medians of ${rounds} interleaved rounds: ${names[0]} ${ms(raw!)}, ${names[1]} ${ms(sdk!)}, ${names[2]} ${ms(ours!)}`;
  return [
    rowFromSamples(`${api} stream ${CHUNKS} chunks: provider + generate() vs SDK iteration`, ours!, names[1], sdk!, { goal: 1.05, note }),
    rowFromSamples(`${api} stream ${CHUNKS} chunks: SDK iteration vs raw fetch floor (informational)`, sdk!, names[0], raw!),
  ];
}

export default {
  name: "provider-stream",
  async run(opts: BenchOptions): Promise<BenchRow[]> {
    const rounds = opts.quick ? 3 : 15;
    const server = await startFakeProviderServer();
    const expected = expectedText();
    try {
      const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "bench", maxRetries: 0 });
      const openAIProvider = new OpenAIChatProvider({ model: "gpt-4o-mini", client: openai });
      const chatBody = { model: "gpt-4o-mini", messages: [{ role: "user", content: "stream please" }], stream: true };
      const chat = await measure(
        server,
        openAIFrames(),
        [
          { name: "raw fetch", run: () => rawStream(`${server.url}/v1/chat/completions`, chatBody, openAIText) },
          {
            name: "openai SDK",
            run: async () => {
              let text = "";
              const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "stream please" }], stream: true });
              for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
              return text;
            },
          },
          { name: "OpenAIChatProvider + generate", run: () => viaGenerate(openAIProvider) },
        ],
        rounds,
        expected,
      );

      const anthropic = new Anthropic({ baseURL: server.url, apiKey: "bench", maxRetries: 0 });
      const anthropicProvider = new AnthropicProvider({ model: "claude-haiku-4-5", client: anthropic });
      const messagesBody = { model: "claude-haiku-4-5", max_tokens: 32000, messages: [{ role: "user", content: "stream please" }], stream: true };
      const messages = await measure(
        server,
        anthropicFrames(),
        [
          { name: "raw fetch", run: () => rawStream(`${server.url}/v1/messages`, messagesBody, anthropicText) },
          {
            name: "anthropic SDK",
            run: async () => {
              let text = "";
              const stream = await anthropic.messages.create({ model: "claude-haiku-4-5", max_tokens: 32000, messages: [{ role: "user", content: "stream please" }], stream: true });
              for await (const event of stream) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
              return text;
            },
          },
          { name: "AnthropicProvider + generate", run: () => viaGenerate(anthropicProvider) },
        ],
        rounds,
        expected,
      );

      return [
        ...rows("openai-chat", ["raw fetch + SSE parse", "openai SDK for-await", "OpenAIChatProvider + generate()"], chat, rounds),
        ...rows("anthropic", ["raw fetch + SSE parse", "anthropic SDK for-await", "AnthropicProvider + generate()"], messages, rounds),
      ];
    } finally {
      await server.close();
    }
  },
};
