/**
 * End to end: the reference MCP servers from npm (server-everything over
 * stdio and over streamable HTTP, server-filesystem over stdio), real child
 * processes, connected with `connectMcpServers`, and a soul turn through the
 * real OpenAI Chat provider against the fake provider server, whose model
 * calls their tools. What the model is shown on the next request is checked
 * on the wire: text, image and error results, an aborted long-running tool,
 * a server killed mid-call (restarted once, then given up), a server that
 * never starts (the agent runs without it), and approval.
 */
import { writeFile, readFile } from "node:fs/promises";
import path from "node:path";
import { assistantMessage, type JsonValue, textPart, toolCall } from "@kosong/core";
import { OpenAIChatProvider } from "@kosong/core/openai";
import { type FakeProviderRequest, startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { connectMcpServers, type McpServerEvent, type McpServers, McpToolset } from "@kosong/mcp";
import { Approval, Context, Soul, type SoulEvent, type Turn, type TurnResult } from "@kosong/soul";
import type { Toolset } from "@kosong/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { everythingStdio, filesystemStdio, hostileStdio, type HttpServer, startEverythingHttp, tempDir } from "./helpers/servers.js";

let provider: FakeProviderServer;
let http: HttpServer;
let mcp: McpServers;
let workspace: string;
const events: McpServerEvent[] = [];

beforeAll(async () => {
  provider = await startFakeProviderServer();
  http = await startEverythingHttp();
  workspace = await tempDir();
  await writeFile(path.join(workspace, "notes.txt"), "hello from disk\n");
  mcp = await connectMcpServers(
    { everything: everythingStdio(), files: filesystemStdio(workspace), remote: http.config, broken: { command: "kosong-no-such-mcp-server", args: ["--stdio"] } },
    { onEvent: (event) => events.push(event) },
  );
});
afterAll(async () => {
  await mcp?.close();
  await http?.stop();
  await provider?.close();
});
beforeEach(() => provider.reset());
const contexts: Context[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
});

/** A soul with the OpenAI Chat provider on the fake server; approvals are answered by `answer` (default: approve). */
async function soulWith(toolset: Toolset, answer: (sender: string) => "approve" | "reject" = () => "approve") {
  const context = new Context(path.join(await tempDir(), "context.jsonl"));
  await context.restore();
  contexts.push(context);
  const approval = new Approval();
  const asked: string[] = [];
  approval.subscribe((event) => {
    if (event.type !== "ApprovalRequest") return;
    asked.push(event.payload.sender);
    approval.respond(event.payload.id, answer(event.payload.sender));
  });
  const soul = new Soul({
    agent: { name: "mcp-e2e", systemPrompt: "You use MCP tools.", toolset },
    provider: new OpenAIChatProvider({ model: "gpt-4.1", apiKey: "test-key", baseURL: `${provider.url}/v1` }),
    context,
    approval,
    config: { retry: { initialDelayMs: 0, maxDelayMs: 0, jitterMs: 0 } },
  });
  return { soul, asked };
}

async function collect(turn: Turn, onEvent: (event: SoulEvent) => void = () => undefined): Promise<{ events: SoulEvent[]; result: TurnResult }> {
  const seen: SoulEvent[] = [];
  for await (const event of turn) {
    seen.push(event);
    onEvent(event);
  }
  return { events: seen, result: await turn.result };
}

/** The tool names a request offered the model. */
function offeredTools(request: FakeProviderRequest): string[] {
  const tools = (request.body?.tools ?? []) as Array<{ function: { name: string } }>;
  return tools.map((tool) => tool.function.name);
}

/** The tool messages a request sent, by call id: their content as sent (a string or a list of parts). */
function sentToolMessages(request: FakeProviderRequest): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const message of (request.body?.messages ?? []) as Array<{ role: string; tool_call_id?: string; content: JsonValue }>) {
    if (message.role === "tool" && message.tool_call_id) out[message.tool_call_id] = message.content;
  }
  return out;
}

function textParts(content: JsonValue): string[] {
  if (typeof content === "string") return [content];
  return (content as Array<{ type: string; text?: string }>).filter((part) => part.type === "text").map((part) => part.text!);
}

describe("a soul turn calling tools of the reference MCP servers", () => {
  it("reports the server that never started and runs with the others", () => {
    expect(mcp.failures.map((failure) => failure.message)).toEqual(["MCP server `broken` could not be started: spawn kosong-no-such-mcp-server ENOENT"]);
    expect(mcp.servers.map((server) => [server.name, server.state])).toEqual([
      ["everything", "connected"],
      ["files", "connected"],
      ["remote", "connected"],
      ["broken", "failed"],
    ]);
    expect(events).toContainEqual({ type: "failed", server: "broken", error: "MCP server `broken` could not be started: spawn kosong-no-such-mcp-server ENOENT" });
  });

  it("gets text, image and error results over stdio and streamable HTTP, each call approved first", async () => {
    const outside = path.join(path.dirname(workspace), "outside.txt");
    provider.enqueue(
      {
        message: assistantMessage(
          [textPart("Looking.")],
          [
            toolCall("echo", "mcp__everything__echo", { message: "hi there" }),
            toolCall("read", "mcp__files__read_text_file", { path: path.join(workspace, "notes.txt") }),
            toolCall("sum", "mcp__remote__get-sum", { a: 2, b: 3 }),
            toolCall("image", "mcp__everything__get-tiny-image", {}),
            toolCall("denied", "mcp__files__read_text_file", { path: outside }),
          ],
        ),
      },
      { message: assistantMessage("All done.") },
    );
    const { soul, asked } = await soulWith(mcp.toolset);
    const { result } = await collect(soul.run("Use the tools."));
    expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 2 });

    const offered = offeredTools(provider.requests[0]!);
    expect(offered).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__files__read_text_file", "mcp__remote__get-sum", "mcp__everything__get-tiny-image"]));
    expect(offered.filter((name) => name.startsWith("mcp__broken__"))).toEqual([]);
    // The server's JSON Schema reaches the model as it was listed.
    const sent = (provider.requests[0]!.body!.tools as Array<{ function: { name: string; parameters: unknown } }>).find((tool) => tool.function.name === "mcp__remote__get-sum")!;
    const listed = mcp.servers[2]!.tools.find((tool) => tool.name === "get-sum")!.inputSchema;
    expect(sent.function.parameters).toEqual(listed);
    expect(listed).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(asked).toEqual(["mcp__everything__echo", "mcp__files__read_text_file", "mcp__remote__get-sum", "mcp__everything__get-tiny-image", "mcp__files__read_text_file"]);

    const results = sentToolMessages(provider.requests[1]!);
    expect(results.echo).toBe("Echo: hi there");
    expect(results.read).toBe("hello from disk\n");
    expect(results.sum).toBe("The sum of 2 and 3 is 5.");
    const image = results.image as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(image.map((part) => part.type)).toEqual(["text", "image_url", "text"]);
    expect(image[1]!.image_url!.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    const denied = textParts(results.denied!);
    expect(denied[0]).toBe("<system>ERROR: The MCP tool `read_text_file` of server `files` reported an error.</system>");
    expect(denied[1]).toMatch(/Access denied/);
  });

  it("asks for every call unless the host trusts readOnlyHint; a rejected call stops the turn and writes nothing", async () => {
    const trusting = new McpToolset(mcp.servers, { trustReadOnlyHint: true });
    const target = path.join(workspace, "written.txt");
    provider.enqueue({
      message: assistantMessage(
        [],
        [toolCall("read", "mcp__files__read_text_file", { path: path.join(workspace, "notes.txt") }), toolCall("write", "mcp__files__write_file", { path: target, content: "x" })],
      ),
    });
    const { soul, asked } = await soulWith(trusting, () => "reject");
    const { events: turnEvents, result } = await collect(soul.run("Copy the notes."));
    expect(result.stopReason).toBe("tool_rejected");
    expect(asked).toEqual(["mcp__files__write_file"]);
    const results = turnEvents.flatMap((event) => (event.type === "ToolResult" ? [event.payload] : []));
    expect(results.find((r) => r.tool_call_id === "read")!.return_value.output).toBe("hello from disk\n");
    expect(results.find((r) => r.tool_call_id === "write")!.return_value.is_error).toBe(true);
    await expect(readFile(target, "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("aborts a long-running tool with the turn; the server keeps working", async () => {
    const everything = mcp.servers[0]!;
    const pid = everything.pid;
    provider.enqueue({ message: assistantMessage([], [toolCall("long", "mcp__everything__trigger-long-running-operation", { duration: 60, steps: 60 })]) });
    const { soul } = await soulWith(mcp.toolset);
    const controller = new AbortController();
    const { events: turnEvents, result } = await collect(soul.run("Run the long operation.", { signal: controller.signal }), (event) => {
      if (event.type === "ToolCall") setTimeout(() => controller.abort(), 100);
    });
    expect(result.stopReason).toBe("aborted");
    expect(turnEvents.filter((event) => event.type === "ToolResult").map((event) => event.payload)).toEqual([
      expect.objectContaining({ tool_call_id: "long", return_value: expect.objectContaining({ is_error: true, message: expect.stringMatching(/^The tool call was interrupted/) }) }),
    ]);
    expect([everything.state, everything.pid, everything.restarts]).toEqual(["connected", pid, 0]);

    provider.enqueue({ message: assistantMessage([], [toolCall("again", "mcp__everything__echo", { message: "still here" })]) }, { message: assistantMessage("ok") });
    const again = await collect(soul.run("Echo."));
    expect(again.result.stopReason).toBe("no_tool_calls");
    expect(sentToolMessages(provider.requests.at(-1)!).again).toBe("Echo: still here");
  });

  it("a server killed mid-call: an error result, restarted once and reported; killed again, the agent runs without it", async () => {
    const crashEvents: McpServerEvent[] = [];
    const own = await connectMcpServers({ crashy: everythingStdio() }, { onEvent: (event) => crashEvents.push(event) });
    try {
      const server = own.servers[0]!;
      const firstPid = server.pid!;
      provider.enqueue(
        { message: assistantMessage([], [toolCall("long", "mcp__crashy__trigger-long-running-operation", { duration: 60, steps: 60 })]) },
        { message: assistantMessage([], [toolCall("retry", "mcp__crashy__echo", { message: "after the crash" })]) },
        { message: assistantMessage("Recovered.") },
      );
      const { soul } = await soulWith(own.toolset);
      const { result } = await collect(soul.run("Run it."), (event) => {
        if (event.type === "ToolCall" && event.payload.id === "long") setTimeout(() => process.kill(firstPid, "SIGKILL"), 100);
      });
      expect(result).toMatchObject({ stopReason: "no_tool_calls", steps: 3 });
      const afterCrash = sentToolMessages(provider.requests[1]!);
      expect(textParts(afterCrash.long!)).toEqual([
        "<system>ERROR: The MCP server exited while running the tool `trigger-long-running-operation` of MCP server `crashy`. It is being restarted; the call was not retried (it may have had effects): call the tool again if needed.</system>",
      ]);
      expect(sentToolMessages(provider.requests[2]!).retry).toBe("Echo: after the crash");
      expect(server.restarts).toBe(1);
      expect(server.pid).not.toBe(firstPid);
      expect(crashEvents.filter((event) => event.type !== "tools_changed").map((event) => event.type)).toEqual(["connected", "crashed", "restarted"]);

      process.kill(server.pid!, "SIGKILL");
      await expect.poll(() => server.state).toBe("failed");
      expect(crashEvents.filter((event) => event.type !== "tools_changed").map((event) => event.type)).toEqual(["connected", "crashed", "restarted", "crashed", "failed"]);
      provider.reset();
      provider.enqueue({ message: assistantMessage("Without the server.") });
      const after = await collect(soul.run("Anything?"));
      expect(after.result.stopReason).toBe("no_tool_calls");
      expect(offeredTools(provider.requests[0]!)).toEqual([]);
    } finally {
      await own.close();
    }
  });

  it("a server that never answers initialize is a clear error and the agent still runs", async () => {
    const own = await connectMcpServers({ mute: hostileStdio({ mute: true }), files: filesystemStdio(workspace) }, { connectTimeoutMs: 4000 });
    try {
      expect(own.failures.map((failure) => failure.message)).toEqual([
        "MCP server `mute` could not be started: did not answer `initialize` within 4000 ms; its stderr ended with:\nmute server: reading stdin, never answering",
      ]);
      provider.enqueue(
        { message: assistantMessage([], [toolCall("list", "mcp__files__list_directory", { path: workspace }), toolCall("gone", "mcp__mute__anything", {})]) },
        { message: assistantMessage("Listed.") },
      );
      const { soul } = await soulWith(own.toolset);
      const { result } = await collect(soul.run("List the files."));
      expect(result.stopReason).toBe("no_tool_calls");
      const sent = sentToolMessages(provider.requests[1]!);
      expect(sent.list).toContain("[FILE] notes.txt");
      expect(textParts(sent.gone!)).toEqual(["<system>ERROR: Tool `mcp__mute__anything` not found</system>"]);
    } finally {
      await own.close();
    }
  });
});
