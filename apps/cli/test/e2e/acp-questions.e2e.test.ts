/**
 * AskUserQuestion over ACP, through the built binary driven by the official
 * ACP SDK's client: ACP has no question request, so each single-choice
 * question reaches the editor as a `session/request_permission` whose
 * options are the question's; the options picked are the model's answers.
 * A call with a multi-select question fails with a clear result (nothing
 * asked), and a cancelled request dismisses the questions.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type RequestPermissionRequest, type RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { callTool, say, useFakeModel, usage } from "./fake-model.js";

const tempDir = useTempDirs();
const fake = useFakeModel();

const languages = { question: "Which language?", header: "Lang", options: [{ label: "Python", description: "large ecosystem" }, { label: "Rust" }] };
const databases = { question: "Which database?", options: [{ label: "Postgres" }, { label: "SQLite" }] };

type Sent = { role: string; content?: unknown; tool_call_id?: string };
const toolResult = (n: number): string => {
  const content = (fake.server.requests[n]!.body!.messages as Sent[]).find((m) => m.tool_call_id === "q1")?.content ?? "";
  return typeof content === "string" ? content : JSON.stringify(content);
};

/** Runs one prompt in `kosong acp` whose model asks `questions`; the editor answers each permission request with `answer`. Returns the requests it saw. */
async function askOverAcp(questions: object[], answer: (request: RequestPermissionRequest) => RequestPermissionResponse["outcome"]): Promise<RequestPermissionRequest[]> {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "acp"], { cwd, env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` }), stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const asked: RequestPermissionRequest[] = [];
  const app = client({ name: "test-editor" })
    .onNotification("session/update", () => undefined)
    .onRequest("session/request_permission", ({ params }) => {
      asked.push(params);
      return { outcome: answer(params) };
    });
  fake.server.enqueue({ message: callTool("q1", "AskUserQuestion", { questions }), usage }, { message: say("Noted."), usage });
  try {
    await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "start a project" }] })).toEqual({ stopReason: "end_turn" });
    });
  } finally {
    child.stdin.end();
  }
  expect(await exited, stderr).toBe(0);
  return asked;
}

describe("AskUserQuestion over ACP (kosong acp and the ACP SDK's client)", { timeout: 60_000 }, () => {
  it("asks each single-choice question as a permission request with the question's options; the picks are the answers", async () => {
    const asked = await askOverAcp([languages, databases], (request) => ({ outcome: "selected", optionId: request.options.at(request.toolCall.title?.includes("language") ? 1 : 0)!.optionId }));
    expect(asked.map((r) => [r.toolCall.toolCallId, r.toolCall.title, r.options.map((o) => o.name)])).toEqual([
      ["q1", "[Lang] Which language?", ["Python", "Rust"]],
      ["q1", "Which database?", ["Postgres", "SQLite"]],
    ]);
    expect(JSON.stringify(asked[0]!.toolCall.content)).toContain("Python: large ecosystem");
    expect(toolResult(1)).toBe("Which language?\n→ Rust\n\nWhich database?\n→ Postgres");
  });

  it("fails a call with a multi-select question clearly, asking nothing; a cancelled request dismisses the questions", async () => {
    const none = await askOverAcp([languages, { ...databases, multi_select: true }], () => ({ outcome: "cancelled" }));
    expect(none).toEqual([]);
    expect(toolResult(1)).toContain("AskUserQuestion over ACP asks single-choice questions only");
    fake.server.reset();
    const cancelled = await askOverAcp([languages], () => ({ outcome: "cancelled" }));
    expect(cancelled).toHaveLength(1);
    expect(toolResult(1)).toContain("The user dismissed the questions without answering.");
  });
});
