/**
 * ExitPlanMode over ACP, through the built binary (`kosong --plan acp`)
 * driven by the official ACP SDK's client: leaving plan mode approves one
 * plan, so its `session/request_permission` offers allow once and reject
 * only, while a Shell command's request still offers "Allow for this
 * session". An editor that answers with the session option anyway (it was
 * not offered) approves that plan once: the model carries it out.
 */
import { spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { callTool, say, sentToolResult, usage, useFakeModel } from "./fake-model.js";

const tempDir = useTempDirs();
const fake = useFakeModel();

/** The result of tool call `id` as request `n` sent it to the model. */
const toolResult = (n: number, id: string): string => sentToolResult(fake.server, n, id);

describe("ExitPlanMode over ACP (kosong --plan acp and the ACP SDK's client)", { timeout: 60_000 }, () => {
  it("asks allow once or reject for the plan, no session option; a Shell command still offers it", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "--plan", "acp"], {
      cwd,
      env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const asked: RequestPermissionRequest[] = [];
    const app = client({ name: "test-editor" })
      .onNotification("session/update", () => undefined)
      .onRequest("session/request_permission", ({ params }) => {
        asked.push(params);
        // A careless editor picks "for the session" whatever it was offered.
        return { outcome: { outcome: "selected", optionId: "approve_for_session" } };
      });
    fake.server.enqueue(
      { message: callTool("p1", "ExitPlanMode", { plan: "1. Write notes.txt" }), usage },
      { message: callTool("s1", "Shell", { command: "echo planned > notes.txt" }), usage },
      { message: say("Done."), usage },
    );
    try {
      await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
        await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
        const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
        expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "plan the notes" }] })).toEqual({ stopReason: "end_turn" });
      });
    } finally {
      child.stdin.end();
    }
    expect(await exited, stderr).toBe(0);

    expect(asked.map((request) => [request.toolCall.toolCallId, request.options.map((option) => option.kind)])).toEqual([
      ["p1", ["allow_once", "reject_once"]],
      ["s1", ["allow_once", "allow_always", "reject_once"]],
    ]);
    expect(asked[0]!.toolCall.title).toContain("1. Write notes.txt");
    // The plan was approved (once) and carried out.
    expect(toolResult(1, "p1")).toContain("The user approved the plan");
    expect(toolResult(2, "s1")).not.toContain("rejected");
  });
});
