/**
 * Cancelling a turn over ACP while an AskUserQuestion question waits for
 * the editor (as a `session/request_permission`), through the built binary
 * and the official ACP SDK's client: the turn ends `cancelled` whether the
 * editor answers the pending request `cancelled` (as the protocol asks) or
 * leaves it up (kosong withdraws it with `$/cancel_request`), no answer
 * reaches the model, and the session takes the next prompt.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "./fake-model.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const question = { question: "Which language?", options: [{ label: "Python" }, { label: "Rust" }] };

/**
 * Runs `kosong acp`; the model asks a question; on the request the editor
 * cancels the turn, then `settle`s the request (its answer, or never).
 */
async function cancelWhileAsked(
  settle: (cancelled: Promise<void>, withdrawn: AbortSignal, order: string[]) => Promise<RequestPermissionResponse>,
): Promise<{ asked: RequestPermissionRequest[]; updates: SessionNotification[]; stop: unknown; next: unknown; order: string[] }> {
  /** What happened, in order: the editor's steps and "turn ended". */
  const order: string[] = [];
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "acp"], { cwd, env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }), stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const asked: RequestPermissionRequest[] = [];
  const updates: SessionNotification[] = [];
  let cancel: () => Promise<void> = () => Promise.resolve();
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .onRequest("session/request_permission", ({ params, signal }) => {
      asked.push(params);
      return settle(cancel(), signal, order);
    });
  server.enqueue({ message: callTool("q1", "AskUserQuestion", { questions: [question] }), usage });
  let stop: unknown;
  let next: unknown;
  try {
    await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      cancel = () => ctx.notify("session/cancel", { sessionId });
      stop = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "start a project" }] });
      order.push("turn ended");
      server.enqueue({ message: say("Still here."), usage });
      next = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "are you there?" }] });
    });
  } finally {
    child.stdin.end();
  }
  expect(await exited, stderr).toBe(0);
  return { asked, updates, stop, next, order };
}

type Sent = { role: string; content?: unknown; tool_call_id?: string };

/** What the model was sent as the question call's result in the next turn's request. */
function questionResult(): string {
  const content = (server.requests.at(-1)!.body!.messages as Sent[]).find((m) => m.tool_call_id === "q1")?.content ?? "";
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("cancelling a turn while AskUserQuestion waits (kosong acp, the ACP SDK's client)", { timeout: 60_000 }, () => {
  it("ends the turn cancelled when the editor answers the pending request `cancelled`; no answer reaches the model", async () => {
    const { asked, updates, stop, next } = await cancelWhileAsked(async (cancelled) => {
      await cancelled;
      return { outcome: { outcome: "cancelled" } };
    });
    expect(asked.map((r) => r.toolCall.title)).toEqual(["Which language?"]);
    expect(stop).toEqual({ stopReason: "cancelled" });
    expect(next).toEqual({ stopReason: "end_turn" });
    // One request to the model for the question's turn, one for the next prompt: the cancelled turn did not go on.
    expect(server.requests).toHaveLength(2);
    expect(questionResult()).not.toMatch(/Python|Rust/);
    const last = updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "q1").at(-1)?.update;
    expect(last).toMatchObject({ status: "failed" });
  });

  it("withdraws the pending request itself ($/cancel_request) when the editor does not answer it, and ends the turn cancelled", async () => {
    const { asked, stop, next, order } = await cancelWhileAsked(async (cancelled, signal, order) => {
      await cancelled;
      // The editor leaves the question up until kosong takes it back.
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      order.push("withdrawn");
      return { outcome: { outcome: "cancelled" } };
    });
    expect(asked).toHaveLength(1);
    // Taken back as the turn was cancelled, before it ended (not when the connection closed).
    expect(order.slice(0, 2)).toEqual(["withdrawn", "turn ended"]);
    expect(stop).toEqual({ stopReason: "cancelled" });
    expect(next).toEqual({ stopReason: "end_turn" });
    expect(server.requests).toHaveLength(2);
    expect(questionResult()).not.toMatch(/Python|Rust/);
  });
});
