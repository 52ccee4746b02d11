/**
 * `kosong acp` driven by the official ACP SDK's client side: the BUILT
 * binary is spawned against the fake OpenAI-compatible server, and the
 * client does what an editor does: initialize, a new session, prompts
 * streaming text and thinking, a tool call needing permission (granted,
 * then denied), a cancel mid-stream, and the session loaded in a new process
 * with its conversation replayed as updates. The client offers its file
 * system and terminal, so WriteFile goes through `fs/write_text_file` and
 * Shell runs through `terminal/create`. A second session gets the real
 * `@modelcontextprotocol/server-filesystem` from the editor in
 * `session/new`, and the model's calls reach it (granted) or not (denied).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, type ClientContext, type McpServer, type RequestPermissionResponse, type SessionNotification } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { callTool, say, useFakeModel, usage } from "./fake-model.js";
import { sessionCheckpointIds } from "./session-checkpoint-ids.js";
import { gateSubagentStart } from "./subagent-start-gate.js";

const tempDir = useTempDirs();
const fake = useFakeModel();
const require = createRequire(import.meta.url);
const filesystemServer = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist", "index.js");

/** What the editor side saw and decides. */
interface Editor {
  updates: SessionNotification[];
  permissions: string[];
  /** The option names of each permission request. */
  optionNames: string[][];
  writes: string[];
  /** Commands run in the editor's terminal. */
  commands: string[];
  answer: RequestPermissionResponse["outcome"];
}

/** Spawns `kosong acp` and runs `op` as its ACP client; resolves once the agent has exited. */
async function withAgent(home: string, cwd: string, editor: Editor, op: (ctx: ClientContext) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, [kosongBin, "--model", "test-model", "acp"], {
    cwd,
    env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const terminals = new Map<string, { output: string; exit: Promise<{ exitCode: number | null }> }>();
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      editor.updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      editor.permissions.push(params.toolCall.title ?? "");
      editor.optionNames.push(params.options.map((option) => option.name));
      return { outcome: editor.answer };
    })
    .onRequest("fs/read_text_file", async ({ params }) => ({ content: await readFile(params.path, "utf8") }))
    .onRequest("fs/write_text_file", async ({ params }) => {
      editor.writes.push(params.path);
      await writeFile(params.path, params.content);
      return {};
    })
    .onRequest("terminal/create", ({ params }) => {
      const args = params.args ?? [];
      editor.commands.push(args.at(-1) ?? params.command);
      // The editor's own environment holds a key of its own; the command's `env` is added to it, as Zed does.
      const env = { ...process.env, EDITOR_API_KEY: "editor-secret", ...Object.fromEntries((params.env ?? []).map(({ name, value }) => [name, value])) };
      const run = spawn(params.command, args, { cwd: params.cwd ?? cwd, env });
      const terminal = { output: "", exit: new Promise<{ exitCode: number | null }>((resolve) => run.on("close", (exitCode) => resolve({ exitCode }))) };
      run.stdout.on("data", (chunk: Buffer) => (terminal.output += chunk.toString()));
      terminals.set(`term-${terminals.size}`, terminal);
      return { terminalId: `term-${terminals.size - 1}` };
    })
    .onRequest("terminal/wait_for_exit", ({ params }) => terminals.get(params.terminalId)!.exit)
    .onRequest("terminal/output", ({ params }) => ({ output: terminals.get(params.terminalId)!.output, truncated: false }))
    .onRequest("terminal/release", () => ({}))
    .onRequest("terminal/kill", () => ({}));
  try {
    await app.connectWith(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>), op);
  } finally {
    child.stdin.end();
  }
  expect(await exited, stderr).toBe(0);
}

/** The texts of the content chunks of kind `kind` (user_message_chunk, agent_message_chunk, agent_thought_chunk). */
function chunks(updates: SessionNotification[], kind: string): string[] {
  return updates.flatMap(({ update }) => {
    if (update.sessionUpdate !== kind || !("content" in update)) return [];
    const content = update.content as { type?: string; text?: string } | null | undefined;
    return content?.type === "text" && content.text !== undefined ? [content.text] : [];
  });
}

describe("kosong acp driven by @agentclientprotocol/sdk's client", { timeout: 60_000 }, () => {
  it("initializes, prompts, asks permission (granted, denied), cancels, and loads the session in a new process", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const editor: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "selected", optionId: "approve" } };
    let sessionId = "";
    await withAgent(home, cwd, editor, async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true } });
      expect(init).toMatchObject({ protocolVersion: 1, agentInfo: { name: "kosong" }, agentCapabilities: { loadSession: true, promptCapabilities: { image: true, audio: false } } });
      sessionId = (await ctx.request("session/new", { cwd, mcpServers: [] })).sessionId;

      fake.server.enqueue({ message: { role: "assistant", content: [{ type: "think", think: "Pondering." }, { type: "text", text: "Hello there." }] }, usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "say hello" }] })).toEqual({ stopReason: "end_turn" });
      expect(chunks(editor.updates, "agent_thought_chunk")).toEqual(["Pondering."]);
      expect(chunks(editor.updates, "agent_message_chunk")).toEqual(["Hello there."]);
      expect(fake.server.requests[0]!.body!.model).toBe("test-model");

      // Granted: the write goes through the editor's fs/write_text_file.
      fake.server.enqueue({ message: callTool("call_w", "WriteFile", { path: "notes.txt", content: "granted" }), usage }, { message: say("Written."), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write notes.txt" }] })).toEqual({ stopReason: "end_turn" });
      // The editor sees what will change: the description carries the diff.
      expect(editor.permissions).toEqual(["Write notes.txt (7 characters)\n@@ -0,0 +1,1 @@\n+granted"]);
      expect(editor.writes).toEqual([path.join(cwd, "notes.txt")]);
      expect(await readFile(path.join(cwd, "notes.txt"), "utf8")).toBe("granted");
      const writeUpdates = editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_w").map(({ update }) => update);
      expect(writeUpdates[0]).toMatchObject({ sessionUpdate: "tool_call", title: "WriteFile", kind: "edit", status: "pending" });
      expect(writeUpdates.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed", rawInput: { path: "notes.txt", content: "granted" } });

      // Granted Shell: the command runs in the editor's terminal, with neither kosong's provider key nor the editor's own.
      fake.server.enqueue({ message: callTool("call_t", "Shell", { command: "echo via-terminal; env" }), usage }, { message: say("Ran it."), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run echo" }] })).toEqual({ stopReason: "end_turn" });
      expect(editor.commands).toEqual(["echo via-terminal; env"]);
      const shellResult = editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_t").at(-1)?.update;
      expect(shellResult).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: expect.stringContaining("via-terminal") } }] });
      const shellOutput = JSON.stringify(shellResult);
      expect(shellOutput).toContain("PATH=");
      expect(shellOutput).not.toContain("sk-test");
      expect(shellOutput).not.toContain("editor-secret");

      // Denied: nothing runs, the tool call fails, the turn ends.
      editor.answer = { outcome: "selected", optionId: "reject" };
      fake.server.enqueue({ message: callTool("call_s", "Shell", { command: "touch denied.txt" }), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "touch a file" }] })).toEqual({ stopReason: "end_turn" });
      expect(editor.permissions.at(-1)).toBe("Run: touch denied.txt");
      // "Allow for this session" says what it covers: for `touch`, this exact command only.
      expect(editor.optionNames.at(-1)).toEqual(["Allow", "Allow for this session: this exact command", "Reject"]);
      expect(editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_s").at(-1)?.update).toMatchObject({ status: "failed" });
      expect(existsSync(path.join(cwd, "denied.txt"))).toBe(false);

      // Cancel mid-stream.
      const words = Array.from({ length: 40 }, (_, i) => ({ type: "text" as const, text: `word${i} ` }));
      // Held after two words until kosong leaves it: the cancel, not the clock, ends the stream.
      fake.server.enqueue({ message: { role: "assistant", content: words }, usage, holdAfter: 3 });
      const before = editor.updates.length;
      const prompt = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk for a while" }] });
      while (chunks(editor.updates.slice(before), "agent_message_chunk").length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await ctx.notify("session/cancel", { sessionId });
      expect(await prompt).toEqual({ stopReason: "cancelled" });
      expect(chunks(editor.updates.slice(before), "agent_message_chunk").length).toBeLessThan(40);
    });

    // A new process loads the session and replays the same conversation.
    const live = editor.updates.filter((n) => n.sessionId === sessionId);
    const loaded: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "cancelled" } };
    await withAgent(home, cwd, loaded, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(await ctx.request("session/load", { sessionId, cwd, mcpServers: [] })).toEqual({});
    });
    expect(loaded.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(chunks(loaded.updates, "user_message_chunk")).toEqual(["say hello", "write notes.txt", "run echo", "touch a file", "talk for a while"]);
    expect(chunks(loaded.updates, "agent_thought_chunk")).toEqual(chunks(live, "agent_thought_chunk"));
    expect(chunks(loaded.updates, "agent_message_chunk").slice(0, 3)).toEqual(["Hello there.", "Written.", "Ran it."]);
    const toolCalls = (updates: SessionNotification[]) => updates.flatMap(({ update }) => (update.sessionUpdate === "tool_call" ? [[update.toolCallId, update.title]] : []));
    expect(toolCalls(loaded.updates)).toEqual(toolCalls(live));
  });

  it("connects the MCP servers the editor passes in session/new: the model's call reaches the real filesystem server, after permission", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "notes.txt"), "notes kept by the editor's MCP server");
    const editor: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "selected", optionId: "approve" } };
    await withAgent(home, cwd, editor, async (ctx) => {
      const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false });
      const files: McpServer = { name: "files", command: process.execPath, args: [filesystemServer, cwd], env: [{ name: "MCP_TEST_VARIABLE", value: "from-the-editor" }] };
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [files] });

      // Granted: the read reaches the server and its answer comes back as the tool's result.
      fake.server.enqueue({ message: callTool("call_m", "mcp__files__read_text_file", { path: path.join(cwd, "notes.txt") }), usage }, { message: say("Read it."), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "read the notes" }] })).toEqual({ stopReason: "end_turn" });
      const offered = (fake.server.requests[0]!.body!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
      expect(offered).toEqual(expect.arrayContaining(["ReadFile", "Shell", "mcp__files__read_text_file", "mcp__files__write_file"]));
      expect(editor.permissions).toHaveLength(1);
      const read = editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_m").at(-1)?.update;
      expect(read).toMatchObject({ status: "completed", content: [{ type: "content", content: { type: "text", text: "notes kept by the editor's MCP server" } }] });
      const toolMessage = (fake.server.requests[1]!.body!.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === "tool");
      expect(JSON.stringify(toolMessage?.content)).toContain("notes kept by the editor's MCP server");

      // Denied: the server's write never runs.
      editor.answer = { outcome: "selected", optionId: "reject" };
      fake.server.enqueue({ message: callTool("call_w", "mcp__files__write_file", { path: path.join(cwd, "planted.txt"), content: "x" }), usage });
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write a file" }] })).toEqual({ stopReason: "end_turn" });
      expect(editor.permissions).toHaveLength(2);
      expect(editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_w").at(-1)?.update).toMatchObject({ status: "failed" });
      expect(existsSync(path.join(cwd, "planted.txt"))).toBe(false);
    });
  });

  it("records each checkpoint's time beside the conversation, as the other modes do", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const editor: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "cancelled" } };
    let sessionId = "";
    await withAgent(home, cwd, editor, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
      sessionId = (await ctx.request("session/new", { cwd, mcpServers: [] })).sessionId;
      fake.server.enqueue({ message: say("One."), usage }, { message: say("Two."), usage });
      for (const text of ["first", "second"]) expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] })).toEqual({ stopReason: "end_turn" });
    });
    const { checkpoints, timed, messages } = await sessionCheckpointIds(path.join(home, ".kosong", "sessions", sessionId));
    expect(checkpoints).toEqual([0, 1, 2, 3]);
    expect(timed).toEqual(checkpoints);
    // Each with the messages before it: a step's checkpoint is announced before the step writes it.
    expect(messages).toEqual([0, 1, 2, 3]);
  });

  it("shows a child agent's steps as updates of the parent's Agent call, its answer as the call's result", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "notes.txt"), "the port is 8080");
    const editor: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "selected", optionId: "approve" } };
    await withAgent(home, cwd, editor, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      fake.server.enqueue(
        { message: callTool("call_a", "Agent", { description: "find the port", prompt: "What port do the notes give?", subagent_type: "explore" }), usage },
        { message: callTool("call_r", "ReadFile", { path: "notes.txt" }), usage },
        { message: say("8080, in notes.txt"), usage },
        { message: say("It is 8080."), usage },
      );
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "which port?" }] })).toEqual({ stopReason: "end_turn" });
      const agentUpdates = editor.updates.filter(({ update }) => "toolCallId" in update && update.toolCallId === "call_a").map(({ update }) => update);
      expect(agentUpdates[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Agent", status: "pending" });
      const steps = agentUpdates.filter((u) => "status" in u && u.status === "in_progress").map((u) => JSON.stringify(u));
      expect(steps.some((u) => u.includes("explore: ✓ ReadFile"))).toBe(true);
      expect(agentUpdates.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed", content: [{ type: "content", content: { type: "text", text: expect.stringContaining("8080, in notes.txt") } }] });
      // The child's own text is not the parent's message, nor is its call an update of its own.
      expect(chunks(editor.updates, "agent_message_chunk")).toEqual(["It is 8080."]);
      expect(editor.updates.some(({ update }) => "toolCallId" in update && update.toolCallId === "call_r")).toBe(false);
    });
  });

  it("asks the editor about a background agent's approval after the prompt has ended, and the agent goes on with the answer", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    // The child starts only once the gate opens: its request comes after the prompt's answer.
    const go = await gateSubagentStart(home, cwd);
    const editor: Editor = { updates: [], permissions: [], optionNames: [], writes: [], commands: [], answer: { outcome: "selected", optionId: "approve" } };
    await withAgent(home, cwd, editor, async (ctx) => {
      await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
      const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
      fake.server.enqueue(
        { message: callTool("call_b", "Agent", { description: "write notes", prompt: "Write notes.txt", subagent_type: "coder", run_in_background: true }), usage },
        { message: say("Started it."), usage },
        { message: callTool("w1", "WriteFile", { path: "notes.txt", content: "from the background\n" }), usage },
        { message: say("notes written"), usage },
      );
      expect(await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "write the notes in the background" }] })).toEqual({ stopReason: "end_turn" });
      expect(editor.permissions).toEqual([]);
      await go();
      await expect.poll(() => readFile(path.join(cwd, "notes.txt"), "utf8").catch(() => ""), { timeout: 20_000 }).toBe("from the background\n");
      expect(editor.permissions).toHaveLength(1);
      expect(editor.writes).toEqual([path.join(cwd, "notes.txt")]);
    });
  });
});
