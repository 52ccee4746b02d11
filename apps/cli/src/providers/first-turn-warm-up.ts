/**
 * The first request's warm-up. A session's first turn runs code that no
 * later one runs again: Node's fetch (undici) compiles its functions,
 * creates its agent and instantiates its HTTP parser, the SDK and the
 * provider build their first request and parse their first stream, and the
 * agent loop runs its first step. That made the first turn about twice as
 * long as a later one.
 *
 * {@link warmUpFirstTurn} runs that code while the user types, without
 * sending anything to the provider: one turn of a soul on an in-memory
 * context, with a provider built like the session's (same kind, model and
 * options, through the same global `fetch`) but with a placeholder key and
 * its base URL on a throwaway HTTP server that this process listens on, on
 * 127.0.0.1, for that one request, answering it with a tiny canned stream
 * in the provider's wire format. The server closes right after. Its
 * request carries the session's system prompt and tool definitions, as the
 * first real one does, so that their conversion and encoding run then too.
 *
 * Nothing leaves the process but for that loopback connection: what the
 * SDK adds from the environment (e.g. an Anthropic auth token, an OpenAI
 * organization), the system prompt and the tools reach only this server.
 * When Node's fetch goes through a proxy from the environment
 * (`NODE_USE_ENV_PROXY`, `--use-env-proxy`), the warm-up is skipped, as the
 * request would reach the proxy.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { setImmediate as nextTurn } from "node:timers/promises";
import { type ChatProvider, type Tool, type Toolset, toolError } from "@kosong/core";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";

/** The wire format a provider speaks: OpenAI Chat Completions, OpenAI Responses, or Anthropic Messages. */
export type WireFormat = "openai-chat" | "openai-responses" | "anthropic";

/** How a provider is warmed up: its wire format, and a twin of it that calls another base URL. */
export interface TransportWarmUp {
  wire: WireFormat;
  /**
   * Builds a provider like the session's (same kind, model and options)
   * that calls `baseURL` with a placeholder key instead of the real one.
   */
  twin(baseURL: string): Promise<ChatProvider>;
}

/**
 * How a warm-up ended: `warmed` (the turn ran to its end and the twin's
 * answer parsed to the canned text), `stopped` (the prompt stopped waiting first),
 * `skipped` (fetch goes through a proxy), or `failed` (anything else; the
 * session's own requests are not affected).
 */
export type WarmUpOutcome = "warmed" | "stopped" | "skipped" | "failed";

/**
 * What the session's first request carries besides the conversation: the
 * agent's system prompt and its tools' definitions. The warm-up's request
 * carries the same (to its loopback server only), so that the provider's
 * conversion of each tool and the encoding of that body run before the
 * first turn, not in it.
 */
export interface WarmUpRequest {
  systemPrompt: string;
  tools: readonly Tool[];
}

/** The tools of `request` as a toolset that runs none: the canned answer calls no tool, and a call would get an error. */
function definitionsOnly(request: WarmUpRequest): Toolset {
  return { tools: request.tools, handle: async (call) => ({ tool_call_id: call.id, return_value: toolError({ message: "not run in the warm-up" }) }) };
}

/** How often the warm-up looks whether the prompt still waits, in ms. */
const idleCheckMs = 5;

/** The text of the canned answer. */
const cannedText = "ok";

/** One server-sent event: `data:` only for OpenAI Chat, with its `event:` line for the others. */
function frame(wire: WireFormat, data: Record<string, unknown> | "[DONE]"): string {
  if (typeof data === "string") return `data: ${data}\n\n`;
  const json = JSON.stringify(data);
  return wire === "openai-chat" ? `data: ${json}\n\n` : `event: ${String(data.type)}\ndata: ${json}\n\n`;
}

/** The smallest complete streamed answer of `wire` whose text is {@link cannedText}. */
function cannedStream(wire: WireFormat): string {
  const id = "warm-up";
  const usage = { input_tokens: 1, output_tokens: 1 };
  switch (wire) {
    case "openai-chat": {
      const chunk = (delta: object, finish: string | null, extra: object = {}) => ({ id, object: "chat.completion.chunk", created: 0, model: id, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
      const end = chunk({}, "stop", { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
      return [chunk({ role: "assistant", content: cannedText }, null), end, "[DONE]" as const].map((data) => frame(wire, data)).join("");
    }
    case "openai-responses": {
      const response = (status: string, output: object[]) => ({ id, object: "response", created_at: 0, model: id, status, output, usage: { ...usage, total_tokens: 2 } });
      const message = { type: "message", id: "msg", role: "assistant", status: "completed", content: [{ type: "output_text", text: cannedText, annotations: [] }] };
      const events = [
        { type: "response.created", sequence_number: 0, response: response("in_progress", []) },
        { type: "response.output_text.delta", sequence_number: 1, item_id: "msg", output_index: 0, content_index: 0, delta: cannedText },
        { type: "response.completed", sequence_number: 2, response: response("completed", [message]) },
      ];
      return events.map((data) => frame(wire, data)).join("");
    }
    case "anthropic": {
      const events = [
        { type: "message_start", message: { id, type: "message", role: "assistant", model: id, content: [], stop_reason: null, stop_sequence: null, usage } },
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: cannedText } },
        { type: "content_block_stop", index: 0 },
        { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage },
        { type: "message_stop" },
      ];
      return events.map((data) => frame(wire, data)).join("");
    }
  }
}

/** Whether this process's fetch sends its requests to a proxy named in the environment. */
function fetchUsesEnvironmentProxy(): boolean {
  const flag = (value: string | undefined) => value !== undefined && value !== "" && value !== "0";
  return flag(process.env.NODE_USE_ENV_PROXY) || [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].includes("--use-env-proxy");
}

/**
 * Node's `http`, through `require` and only when the warm-up runs: an ES import of `node:http` reads each of its
 * exports, and one of them loads Node's whole fetch (undici, http2, web streams), which would then be loaded, and held,
 * before the prompt is drawn (14 MB more RSS in a bare `node`; 2 MB through `require`).
 */
const requireBuiltin = createRequire(import.meta.url);

/** A server on 127.0.0.1 (a free port) that answers every request, once its body is read, with `body` as an event stream. */
async function listenLocally(body: string): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = requireBuiltin("node:http") as typeof import("node:http");
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "text/event-stream", connection: "close" }).end(body));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

/**
 * Runs one turn of a soul on an in-memory context with `warmUp`'s twin,
 * against a throwaway local server (see the module's comment), while
 * `idle()` holds: a false `idle()` aborts the turn within a few
 * milliseconds. The turn's request carries `request`'s system prompt and
 * tools (none by default). Resolves once the server is closed;
 * never rejects.
 */
export async function warmUpFirstTurn(warmUp: TransportWarmUp, idle: () => boolean, request: WarmUpRequest = { systemPrompt: "", tools: [] }): Promise<WarmUpOutcome> {
  if (fetchUsesEnvironmentProxy()) return "skipped";
  // A turn already started (Enter pressed while the SDK loaded) runs that code itself: no server, no twin to hold it up.
  if (!idle()) return "stopped";
  const abort = new AbortController();
  // The request in flight is aborted within a few milliseconds of the prompt no longer waiting.
  const watch = setInterval(() => idle() || abort.abort(), idleCheckMs).unref();
  let server: { url: string; close(): Promise<void> } | null = null;
  try {
    server = await listenLocally(cannedStream(warmUp.wire));
    const provider = await warmUp.twin(server.url);
    await nextTurn();
    if (!idle()) return "stopped";
    const context = new Context(new MemoryContextLog());
    await context.restore();
    const soul = new Soul({ agent: { name: "warm-up", systemPrompt: request.systemPrompt, toolset: definitionsOnly(request) }, provider, context });
    let text = "";
    const turn = soul.run("hi", { signal: abort.signal });
    for await (const event of turn) if (event.type === "TextPart") text += event.payload.text;
    const { stopReason } = await turn.result;
    if (!idle()) return "stopped";
    return stopReason === "no_tool_calls" && text === cannedText ? "warmed" : "failed";
  } catch {
    return idle() ? "failed" : "stopped";
  } finally {
    clearInterval(watch);
    abort.abort();
    await server?.close();
  }
}
