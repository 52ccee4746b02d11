/**
 * `kosong acp` against a hostile editor, driven by the official ACP SDK's
 * client: a `session/new` whose cwd is relative or a regular file, and a
 * `session/load` of an id prefix or of another workspace's session, are
 * refused with invalid params (-32602), and the MCP servers the editor
 * passes with a refused load are never started.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type ClientContext, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { say, useFakeModel, usage } from "./fake-model.js";

const tempDir = useTempDirs();
const fake = useFakeModel();

/** Spawns `kosong acp` in `cwd`, runs `op` as its client (after `initialize`), and expects a clean exit. */
async function withAgent(home: string, cwd: string, updates: SessionNotification[], op: (ctx: ClientContext) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "acp"], {
    cwd,
    env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const app = client({ name: "hostile-editor" }).onNotification("session/update", ({ params }) => {
    updates.push(params);
  });
  try {
    await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      await op(ctx);
    });
  } finally {
    child.stdin.end();
  }
  expect(await exited, stderr).toBe(0);
}

/** The JSON-RPC error code `request` fails with (null when it succeeds). */
async function errorCode(request: Promise<unknown>): Promise<number | null> {
  return request.then(
    () => null,
    (error: { code?: number }) => error.code ?? -1,
  );
}

describe("kosong acp refuses what a hostile editor asks", { timeout: 60_000 }, () => {
  it("session/new with a relative cwd or a regular file: invalid params", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const file = path.join(cwd, "a-file.txt");
    await writeFile(file, "not a folder\n");
    await withAgent(home, cwd, [], async (ctx) => {
      expect(await errorCode(ctx.request("session/new", { cwd: ".", mcpServers: [] }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/new", { cwd: "project", mcpServers: [] }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/new", { cwd: file, mcpServers: [] }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/new", { cwd: path.join(cwd, "missing"), mcpServers: [] }))).toBe(-32602);
      // A real folder still works.
      expect((await ctx.request("session/new", { cwd, mcpServers: [] })).sessionId).toMatch(/\S/);
    });
  });

  it("session/load of an id prefix or of another workspace's session: invalid params, no conversation replayed, no MCP server started", async () => {
    const home = await tempDir();
    const first = path.join(home, "first");
    const other = path.join(home, "other");
    await Promise.all([mkdir(first), mkdir(other)]);
    let sessionId = "";
    await withAgent(home, first, [], async (ctx) => {
      sessionId = (await ctx.request("session/new", { cwd: first, mcpServers: [] })).sessionId;
      fake.server.enqueue({ message: say("A secret answer."), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "the first workspace's secret" }] })).toEqual({ stopReason: "end_turn" });
    });

    // An MCP server that leaves a mark when it starts.
    const marker = path.join(home, "mcp-started");
    const mcpServers = [{ name: "marker", command: process.execPath, args: ["-e", `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "started")`], env: [] }];
    const updates: SessionNotification[] = [];
    await withAgent(home, other, updates, async (ctx) => {
      expect(await errorCode(ctx.request("session/load", { sessionId: sessionId.slice(0, -1), cwd: first, mcpServers }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/load", { sessionId, cwd: other, mcpServers }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/load", { sessionId: "no-such-session", cwd: other, mcpServers }))).toBe(-32602);
      expect(await errorCode(ctx.request("session/load", { sessionId: `${sessionId}\ud800`, cwd: first, mcpServers }))).toBe(-32602);
    });
    expect(JSON.stringify(updates)).not.toContain("secret");
    expect(existsSync(marker)).toBe(false);

    // The exact id in its own workspace loads, and replays its conversation.
    await withAgent(home, first, updates, async (ctx) => {
      expect(await ctx.request("session/load", { sessionId, cwd: first, mcpServers: [] })).toEqual({});
    });
    expect(JSON.stringify(updates)).toContain("the first workspace's secret");
  });
});
