import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { assistantMessage, textPart, thinkPart, tokenUsage, toolCall } from "@kosong/core";
import { fixture } from "@kosong/test-support";
import { useFakeProviderServer } from "../helpers/fake-server.js";

const server = useFakeProviderServer({ perTest: true });

function post(path: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-test": "yes" },
    body: JSON.stringify(body),
    ...init,
  });
}

/** The SSE frames of a body: each frame's lines. */
function frames(text: string): string[][] {
  return text
    .split("\n\n")
    .filter((f) => f.trim() !== "")
    .map((f) => f.split("\n"));
}

function dataOf(frame: string[]): string {
  const line = frame.find((l) => l.startsWith("data: "));
  if (line === undefined) throw new Error(`frame without data: ${frame.join("\\n")}`);
  return line.slice("data: ".length);
}

const reply = {
  message: assistantMessage([thinkPart("let me see"), textPart("Hel"), textPart("lo")], [toolCall("call_1", "add", { a: 1, b: 2 })]),
  usage: tokenUsage({ input_other: 10, output: 5, input_cache_read: 4 }),
};

describe("framing of scripted messages", () => {
  it("OpenAI Chat: data-only frames ending with [DONE], text/event-stream with a computed content-length", async () => {
    server.enqueue(reply);
    const res = await post("/v1/chat/completions", { model: "gpt-x", stream: true, messages: [] });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const text = await res.text();
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    const all = frames(text);
    expect(all.every((f) => f.length === 1 && f[0]!.startsWith("data: "))).toBe(true);
    expect(dataOf(all.at(-1)!)).toBe("[DONE]");
    const chunks = all.slice(0, -1).map((f) => JSON.parse(dataOf(f)));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "", refusal: null });
    expect(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "gpt-x")).toBe(true);
    const deltas = chunks.flatMap((c) => c.choices.map((ch: { delta: unknown }) => ch.delta));
    expect(deltas).toContainEqual({ reasoning_content: "let me see" });
    expect(deltas.filter((d) => "content" in d && d.content !== "").map((d) => d.content)).toEqual(["Hel", "lo"]);
    expect(deltas).toContainEqual({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "add", arguments: "" } }] });
    expect(deltas).toContainEqual({ tool_calls: [{ index: 0, function: { arguments: '{"a":1,"b":2}' } }] });
    expect(chunks.at(-2).choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 14, completion_tokens: 5, total_tokens: 19, prompt_tokens_details: { cached_tokens: 4 } },
    });
  });

  it("Anthropic: every frame has an event: line naming its type, no [DONE]", async () => {
    server.enqueue(reply);
    const res = await post("/v1/messages?beta=true", { model: "claude-x", stream: true, messages: [] });
    const all = frames(await res.text());
    for (const f of all) {
      expect(f[0]).toMatch(/^event: /);
      expect(JSON.parse(dataOf(f)).type).toBe(f[0]!.slice("event: ".length));
    }
    const types = all.map((f) => f[0]!.slice("event: ".length));
    expect(types[0]).toBe("message_start");
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    expect(all.some((f) => f.includes("data: [DONE]"))).toBe(false);
    const delta = JSON.parse(dataOf(all.at(-2)!));
    expect(delta).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, output_tokens: 5 },
    });
  });

  it("Responses: event: lines, increasing sequence numbers, ends with response.completed and no [DONE]", async () => {
    server.enqueue(reply);
    const res = await post("/v1/responses", { model: "gpt-5", stream: true, input: [] });
    const all = frames(await res.text());
    const events = all.map((f) => {
      const event = JSON.parse(dataOf(f));
      expect(f[0]).toBe(`event: ${event.type}`);
      return event;
    });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events[0].type).toBe("response.created");
    expect(events.at(-1).type).toBe("response.completed");
    expect(events.at(-1).response.usage).toMatchObject({ input_tokens: 14, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5 });
    const call = events.find((e) => e.type === "response.output_item.added" && e.item.type === "function_call");
    expect(call.item).toMatchObject({ call_id: "call_1", name: "add", arguments: "" });
    expect(call.item.id).toMatch(/^fc_/);
  });

  it("a non-stream request gets the JSON body of its format with a computed content-length", async () => {
    server.enqueue({ ...reply, id: "msg_1" });
    const res = await post("/v1/messages", { model: "claude-x", messages: [] });
    expect(res.headers.get("content-type")).toBe("application/json");
    const text = await res.text();
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toEqual({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [
        { type: "thinking", thinking: "let me see", signature: "" },
        { type: "text", text: "Hello" },
        { type: "tool_use", id: "call_1", name: "add", input: { a: 1, b: 2 } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, output_tokens: 5 },
    });
  });
});

describe("queue and recording", () => {
  it("serves queued responses in order, then a 500 that names the problem", async () => {
    server.enqueue({ status: 200, body: { n: 1 } }, { status: 201, body: { n: 2 } });
    expect(server.pending).toBe(2);
    const first = await post("/v1/chat/completions", {});
    const second = await post("/v1/anything", {});
    expect([first.status, await first.json()]).toEqual([200, { n: 1 }]);
    expect([second.status, await second.json()]).toEqual([201, { n: 2 }]);
    expect(server.pending).toBe(0);
    const third = await post("/v1/messages", {});
    expect(third.status).toBe(500);
    const body = (await third.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe("error");
    expect(body.error.message).toContain("no response queued for POST /v1/messages");
    expect(body.error.message).toContain("request #3");
  });

  it("records method, path, query, headers, parsed and raw body of every request", async () => {
    server.enqueue({ status: 200, body: {} }, { status: 200, body: {} });
    await post("/v1/messages?beta=true", { model: "m", stream: false });
    await fetch(`${server.url}/v1/models`, { method: "POST", body: "not json" });
    expect(server.requests).toHaveLength(2);
    const [a, b] = server.requests;
    expect(a).toMatchObject({ method: "POST", path: "/v1/messages", url: "/v1/messages?beta=true", body: { model: "m", stream: false } });
    expect(a!.headers["x-test"]).toBe("yes");
    expect(a!.rawBody).toBe('{"model":"m","stream":false}');
    expect(b).toMatchObject({ path: "/v1/models", body: null, rawBody: "not json" });
  });

  it("sends status errors with their headers, and reset() empties queue and log", async () => {
    server.enqueue({ status: 429, body: { error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } }, headers: { "Retry-After": "2", "x-request-id": "req_9" } });
    const res = await post("/v1/chat/completions", {});
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(res.headers.get("x-request-id")).toBe("req_9");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    server.enqueue({ status: 200, body: {} });
    server.reset();
    expect(server.pending).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it("lets the given headers replace the default content-type (a gateway's HTML error page)", async () => {
    server.enqueue({ status: 502, body: "<html>Bad gateway</html>", headers: { "Content-Type": "text/html" } });
    const res = await post("/v1/chat/completions", {});
    expect([res.status, res.headers.get("content-type"), await res.text()]).toEqual([502, "text/html", "<html>Bad gateway</html>"]);
  });

  it("reports an unknown wire format for a scripted message instead of guessing", async () => {
    server.enqueue(reply);
    const res = await post("/v1/completions", { stream: true });
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("cannot tell the wire format of POST /v1/completions");
  });

  it("fails at enqueue time for a missing or unsupported fixture", () => {
    expect(() => server.enqueue({ fixture: "/nonexistent/stream.sse" })).toThrow(/no such file/);
    expect(() => server.enqueue({ fixture: fixture("provider-streams/README.md") })).toThrow(/unsupported extension/);
  });
});

describe("cuts and delays", () => {
  it("cutAfter destroys the connection after N frames: the client sees those frames, then an error", async () => {
    server.enqueue({ sse: ["data: {\"n\":1}\n\n", "data: {\"n\":2}\n\n", "data: {\"n\":3}\n\n"], cutAfter: 2 });
    const res = await post("/v1/chat/completions", {});
    expect(res.headers.get("content-length")).toBeNull();
    const reader = res.body!.getReader();
    let received = "";
    const decoder = new TextDecoder();
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        received += decoder.decode(value, { stream: true });
      }
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(received).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
  });

  it("chunkDelayMs sends frames separately over a chunked response", async () => {
    server.enqueue({ chunks: [{ n: 1 }, { n: 2 }], chunkDelayMs: 60_000 });
    const controller = new AbortController();
    const res = await post("/v1/chat/completions", {}, { signal: controller.signal });
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    const reader = res.body!.getReader();
    const first = await reader.read();
    // The second frame is a minute away: the first read holds exactly the first frame.
    expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
  });

  it("holdAfter sends N frames, then the rest only once release resolves; without release the stream stalls until the client leaves", async () => {
    let release!: () => void;
    server.enqueue(
      { chunks: [{ n: 1 }, { n: 2 }, { n: 3 }], holdAfter: 2, release: new Promise<void>((resolve) => (release = resolve)) },
      { chunks: [{ m: 1 }, { m: 2 }], holdAfter: 1 },
      { status: 200, body: { next: true } },
    );
    const res = await post("/v1/chat/completions", {});
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = "";
    while (!received.includes('{"n":2}')) received += decoder.decode((await reader.read()).value, { stream: true });
    expect(received).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
    const rest = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return received;
        received += decoder.decode(value, { stream: true });
      }
    })();
    // Held: a request made meanwhile is answered, and the held stream has sent nothing more.
    const controller = new AbortController();
    const stalled = await post("/v1/chat/completions", {}, { signal: controller.signal });
    const stalledReader = stalled.body!.getReader();
    expect(decoder.decode((await stalledReader.read()).value)).toBe('data: {"m":1}\n\n');
    expect(received).toBe('data: {"n":1}\n\ndata: {"n":2}\n\n');
    release();
    expect(await rest).toBe('data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3}\n\ndata: [DONE]\n\n');
    // The stall without release ends when the client leaves; the server goes on.
    controller.abort();
    await expect(stalledReader.read()).rejects.toThrow();
    expect(await (await post("/v1/chat/completions", {})).json()).toEqual({ next: true });
  });

  it("delayMs holds the response back until the client gives up", async () => {
    server.enqueue({ status: 200, body: {}, delayMs: 60_000 }, { status: 200, body: { next: true } });
    await expect(post("/v1/chat/completions", {}, { signal: AbortSignal.timeout(50) })).rejects.toThrow();
    const res = await post("/v1/chat/completions", {});
    expect(await res.json()).toEqual({ next: true });
  });
});

describe("fixtures", () => {
  it(".sse files are served byte for byte, with the headers recorded in _sources.json", async () => {
    const file = fixture("provider-streams/anthropic-messages/stream-text.sse");
    server.enqueue({ fixture: file });
    const res = await post("/v1/messages", { stream: true });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("request-id")).toBe("req_011CYEXg9iLMo4YhB4XfkXBw");
    expect(await res.text()).toBe(readFileSync(file, "utf8"));
  });

  it(".chunks.jsonl files are framed per the request's wire format", async () => {
    const file = fixture("provider-streams/openai-responses/stream-reasoning-summary-tool-loop.turn2.chunks.jsonl");
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
    server.enqueue({ fixture: file }, { fixture: file });
    const responses = frames(await (await post("/v1/responses", { stream: true })).text());
    expect(responses).toHaveLength(lines.length);
    responses.forEach((f, i) => {
      expect(f).toEqual([`event: ${JSON.parse(lines[i]!).type}`, `data: ${lines[i]}`]);
    });
    const chat = frames(await (await post("/v1/chat/completions", { stream: true })).text());
    expect(chat).toHaveLength(lines.length + 1);
    expect(chat.at(-1)).toEqual(["data: [DONE]"]);
    expect(chat[0]).toEqual([`data: ${lines[0]}`]);
  });

  it(".json error files get the status from their name; `status` overrides it", async () => {
    const file = fixture("provider-streams/openai-chat-completions/error-400-unsupported-parameter.json");
    server.enqueue({ fixture: file }, { fixture: file, status: 422 });
    const a = await post("/v1/chat/completions", {});
    expect(a.status).toBe(400);
    expect(await a.json()).toEqual(JSON.parse(readFileSync(file, "utf8")));
    expect((await post("/v1/chat/completions", {})).status).toBe(422);
  });

  it(".nock.json files queue one response per record, in order, with their headers", async () => {
    const file = fixture("provider-streams/anthropic-messages/nonstream-tool-runner-multiturn.nock.json");
    const records = JSON.parse(readFileSync(file, "utf8")) as Array<{ status: number; response: unknown; rawHeaders: Record<string, string> }>;
    server.enqueue({ fixture: file });
    expect(server.pending).toBe(records.length);
    for (const record of records) {
      const res = await post("/v1/messages?beta=true", {});
      expect(res.status).toBe(record.status);
      expect(res.headers.get("request-id")).toBe(record.rawHeaders["request-id"]);
      expect(await res.json()).toEqual(record.response);
    }
  });

  it("serves every recorded fixture with its status and well-formed frames", async () => {
    const folders: Record<string, string> = {
      "openai-chat-completions": "/v1/chat/completions",
      "openai-responses": "/v1/responses",
      "anthropic-messages": "/v1/messages",
      "errors-reference": "",
    };
    let served = 0;
    for (const [folder, route] of Object.entries(folders)) {
      const dir = fixture(`provider-streams/${folder}`);
      for (const name of readdirSync(dir)) {
        if (!/\.(sse|chunks\.jsonl|json)$/.test(name) || name.startsWith("_") || name === "error-bodies.json") continue;
        const endpoint = route || (name.startsWith("anthropic") ? "/v1/messages" : "/v1/chat/completions");
        server.enqueue({ fixture: path.join(dir, name) });
        const count = server.pending;
        for (let i = 0; i < count; i++) {
          const res = await post(endpoint, { stream: true });
          const status = /error-(\d{3})/.exec(name);
          expect(res.status, name).toBe(status ? Number(status[1]) : 200);
          const text = await res.text();
          if (name.endsWith(".json")) {
            expect(() => JSON.parse(text), name).not.toThrow();
          } else {
            for (const f of frames(text)) {
              const data = dataOf(f);
              if (data !== "[DONE]") expect(() => JSON.parse(data), `${name}: ${data}`).not.toThrow();
            }
          }
          served++;
        }
      }
    }
    expect(served).toBeGreaterThanOrEqual(40);
  });
});
