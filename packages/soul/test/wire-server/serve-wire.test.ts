/**
 * serveWire in process: a client writes JSON-RPC lines into a real stream
 * and reads the server's lines back. The SDK-driven end-to-end test lives in
 * apps/cli/test/e2e/wire-mode.e2e.test.ts; this covers the protocol's edges:
 * malformed input, features kosong has off, approvals failing closed, provider
 * errors, the replay log, and the end of input.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { serveWire, WireErrorCode, type ServeWireOptions, type WireQuestionChannel } from "@kosong/soul/wire";
import { describe, expect, it } from "vitest";
import { approvingShell, call, script, tempDir, testSoul } from "../soul/helpers.js";

type Line = { id?: string | number | null; method?: string; params?: { type: string; payload: Record<string, unknown> }; result?: Record<string, unknown>; error?: { code: number; message: string } };

const { shell, ran } = approvingShell();

/** A soul served over in-memory streams, and a client for it. */
async function served(scripts: string[], options: ServeWireOptions = {}) {
  const { soul, provider } = await testSoul({ scripts, tools: [shell] });
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let i = buffered.indexOf("\n"); i !== -1; i = buffered.indexOf("\n")) {
      lines.push(JSON.parse(buffered.slice(0, i)) as Line);
      buffered = buffered.slice(i + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const done = serveWire(soul, input, output, options);
  let seen = 0;
  const client = {
    lines,
    done,
    provider,
    soul,
    send: (message: object | string) => input.write(`${typeof message === "string" ? message : JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
    /** The next line (after those already taken) that matches. */
    async next(match: (line: Line) => boolean): Promise<Line> {
      for (;;) {
        while (seen < lines.length) {
          const line = lines[seen++]!;
          if (match(line)) return line;
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
    /** Calls `method` and waits for its answer. */
    async call(id: string, method: string, params?: object): Promise<Line> {
      client.send({ id, method, ...(params && { params }) });
      return client.next((line) => line.id === id && line.method === undefined);
    },
    end: () => input.end(),
  };
  return client;
}

describe("serveWire: kimi-cli's wire protocol", () => {
  it("answers malformed input and switched-off features as kimi-cli does, and keeps serving", async () => {
    const client = await served(["text: hi"]);
    client.send("{not json");
    expect(await client.next(() => true)).toEqual({ jsonrpc: "2.0", id: null, error: { code: WireErrorCode.parseError, message: "Invalid JSON format" } });
    client.send("[1, 2]");
    expect((await client.next(() => true)).error?.code).toBe(WireErrorCode.invalidRequest);
    expect((await client.call("1", "no_such_method")).error).toEqual({ code: WireErrorCode.methodNotFound, message: "Unexpected method received: no_such_method" });
    expect((await client.call("2", "set_plan_mode", { enabled: true })).error).toEqual({ code: WireErrorCode.invalidState, message: "Plan mode is not supported" });
    expect((await client.call("3", "cancel")).error).toEqual({ code: WireErrorCode.invalidState, message: "No agent turn is in progress" });
    expect((await client.call("4", "steer", { user_input: "x" })).error?.code).toBe(WireErrorCode.invalidState);
    expect((await client.call("5", "prompt", { user_input: 42 })).error).toEqual({ code: WireErrorCode.invalidParams, message: "Invalid parameters for method `prompt`" });
    expect((await client.call("6", "prompt", { user_input: "   " })).error?.code).toBe(WireErrorCode.invalidParams);
    const init = await client.call("7", "initialize", { protocol_version: "1.7", external_tools: [{ name: "open_in_ide", description: "d", parameters: {} }] });
    expect(init.result).toMatchObject({
      protocol_version: "1.9",
      server: { name: "test", version: "unknown" },
      slash_commands: [],
      capabilities: { supports_question: false },
      external_tools: { accepted: [], rejected: [{ name: "open_in_ide", reason: expect.stringContaining("not supported") }] },
    });
    expect((await client.call("8", "prompt", { user_input: "hello" })).result).toEqual({ status: "finished" });
    client.end();
    await client.done;
  });

  it("asks questions with kimi-cli's QuestionRequest only of a client that declared supports_question; an error or a malformed answer is a dismissal", async () => {
    let channel: WireQuestionChannel | null = null;
    const client = await served(["text: hi"], { onQuestions: (given) => (channel = given) });
    const questions = [{ question: "Which language?", header: "Lang", options: [{ label: "Python", description: "large ecosystem" }, { label: "Rust" }], multi_select: false }];
    expect((await client.call("1", "initialize", { protocol_version: "1.9" })).result).toMatchObject({ capabilities: { supports_question: true } });
    await expect(channel!.ask("c1", questions)).rejects.toThrow("did not declare capabilities.supports_question");
    await client.call("2", "initialize", { protocol_version: "1.9", capabilities: { supports_question: true } });
    const answered = channel!.ask("c1", questions);
    const request = await client.next((line) => line.method === "request");
    expect(request.params).toEqual({ type: "QuestionRequest", payload: { id: request.id, tool_call_id: "c1", questions } });
    client.send({ id: request.id, result: { request_id: request.id, answers: { "Which language?": "Rust" } } });
    expect(await answered).toEqual({ "Which language?": "Rust" });
    const failed = channel!.ask("c2", questions);
    client.send({ id: (await client.next((line) => line.method === "request")).id, error: { code: -1, message: "no UI" } });
    expect(await failed).toEqual({});
    const malformed = channel!.ask("c3", questions);
    client.send({ id: (await client.next((line) => line.method === "request")).id, result: { answers: ["Rust"] } });
    expect(await malformed).toEqual({});
    client.end();
    await client.done;
  });

  it("refuses a line over the limit without buffering it, then reads the next", async () => {
    const client = await served(["text: hi"], { maxLineBytes: 1000 });
    client.send(`{"jsonrpc":"2.0","id":"big","method":"prompt","params":{"user_input":"${"x".repeat(5000)}"}}`);
    expect((await client.next(() => true)).error?.message).toMatch(/^Line too long/);
    expect((await client.call("1", "prompt", { user_input: "small" })).result).toEqual({ status: "finished" });
    client.end();
    await client.done;
  });

  it("fails closed: an error answer or a malformed one to an approval request rejects the tool call", async () => {
    ran.length = 0;
    const client = await served([script(call("c1", "Shell", { command: "rm -rf /" })), script(call("c2", "Shell", { command: "ls" }))]);
    client.send({ id: "p1", method: "prompt", params: { user_input: "go" } });
    const request = await client.next((line) => line.method === "request");
    expect(request.params).toEqual({ type: "ApprovalRequest", payload: { id: request.id, tool_call_id: "c1", sender: "Shell", action: "run command", description: "rm -rf /", display: [] } });
    client.send({ id: request.id, error: { code: -1, message: "no UI" } });
    expect((await client.next((line) => line.id === "p1")).result).toEqual({ status: "finished" });

    client.send({ id: "p2", method: "prompt", params: { user_input: "again" } });
    const second = await client.next((line) => line.method === "request");
    client.send({ id: second.id, result: { request_id: second.id, response: "yes please" } });
    const answered = await client.next((line) => line.params?.type === "ApprovalResponse");
    expect(answered.params!.payload).toMatchObject({ request_id: second.id, response: "reject" });
    await client.next((line) => line.id === "p2");
    expect(ran).toEqual([]);
    client.end();
    await client.done;
  });

  it("passes an approval's feedback to the model", async () => {
    ran.length = 0;
    const client = await served([script(call("c1", "Shell", { command: "make" })), "text: ok, not running it"]);
    client.send({ id: "p", method: "prompt", params: { user_input: "build" } });
    const request = await client.next((line) => line.method === "request");
    client.send({ id: request.id, result: { request_id: request.id, response: "reject", feedback: "use ninja instead" } });
    expect((await client.next((line) => line.id === "p")).result).toEqual({ status: "finished" });
    expect(JSON.stringify(client.provider.calls[1]!.history.at(-1))).toContain("use ninja instead");
    client.end();
    await client.done;
  });

  it("answers a chat provider failure with kimi-cli's code -32003", async () => {
    const client = await served(["error: 400 invalid model"]);
    const answer = await client.call("1", "prompt", { user_input: "hi" });
    expect(answer.error?.code).toBe(WireErrorCode.chatProviderError);
    expect(answer.error?.message).toContain("invalid model");
    client.end();
    await client.done;
  });

  it("records what it sends in kimi-cli's wire.jsonl format and replays it; without a log, replay sends nothing", async () => {
    const bare = await served([]);
    expect((await bare.call("r", "replay")).result).toEqual({ status: "finished", events: 0, requests: 0 });
    bare.end();
    await bare.done;

    const log = path.join(await tempDir(), "wire.jsonl");
    const first = await served(["text: one"], { log });
    await first.call("1", "prompt", { user_input: "first" });
    const sent = first.lines.filter((line) => line.method === "event").map((line) => line.params);
    first.end();
    await first.done;
    const records = (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records[0]).toEqual({ type: "metadata", protocol_version: "1.9" });
    expect(records.slice(1).map((r) => r.message)).toEqual(sent);
    expect(records.slice(1).every((r) => typeof r.timestamp === "number")).toBe(true);

    const second = await served([], { log });
    const replay = await second.call("r", "replay");
    expect(replay.result).toEqual({ status: "finished", events: sent.length, requests: 0 });
    expect(second.lines.filter((line) => line.method === "event").map((line) => line.params)).toEqual(sent);
    second.end();
    await second.done;
  });

  it("aborts the running turn when the input ends, and settles after it", async () => {
    const streaming = await served([script(call("c1", "Shell", { command: "sleep" }))]);
    streaming.send({ id: "p", method: "prompt", params: { user_input: "go" } });
    await streaming.next((line) => line.method === "request");
    streaming.end();
    await streaming.done;
    expect(streaming.soul.running).toBe(false);
    expect(streaming.soul.context.history.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1" });
  });

  it("sends an approval request made while no turn runs (background work) as a request, and answers it with the client's reply", async () => {
    const client = await served(["text: hi"]);
    const asked = client.soul.approval.request({ tool_call_id: "bg-1", sender: "coder/Shell (background agent agent-0000000a)", action: "Shell", description: "Run: make" });
    const request = await client.next((line) => line.method === "request");
    expect(request.params).toMatchObject({ type: "ApprovalRequest", payload: { sender: "coder/Shell (background agent agent-0000000a)", description: "Run: make" } });
    client.send({ id: request.id, result: { request_id: request.id, response: "approve" } });
    expect(await asked).toEqual({ approved: true });
    client.end();
    await client.done;
  });
});
