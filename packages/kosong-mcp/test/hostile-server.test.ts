/**
 * A server is not trusted: against a real misbehaving server process (on the
 * official SDK's server), the toolset cancels calls on the server, times out
 * stalls, caps floods, escapes control characters, follows tool-list
 * changes, names odd tools safely, restarts a crashed server once and then
 * gives up on it, and reports a server that never answers.
 */
import { readFile } from "node:fs/promises";
import { type AddressInfo, createServer, type Socket } from "node:net";
import path from "node:path";
import { defineTool, SimpleToolset, toolError, toolResultToMessage } from "@kosong/core";
import { connectMcpServers, type McpServerEvent, McpServerConnection, McpToolset, NO_APPROVAL_CHANNEL_MESSAGE, withMcpTools } from "@kosong/mcp";
import { approveAll } from "@kosong/soul";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { approveEveryCall, call, hostileStdio, tempDir } from "./helpers/servers.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

async function hostile(options: { cancelLog?: string; callTimeoutMs?: number } = {}) {
  const events: McpServerEvent[] = [];
  const server = new McpServerConnection("hostile", hostileStdio(options), { callTimeoutMs: options.callTimeoutMs ?? 60_000, onEvent: (e) => events.push(e) });
  open.push(server);
  await server.connect();
  return { server, toolset: new McpToolset([server], { approval: approveEveryCall }), events };
}

function textOf(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

describe("a hostile MCP server", () => {
  it("gets the abort of a call as MCP cancellation, and the call ends as cancelled", async () => {
    const cancelLog = path.join(await tempDir(), "cancelled.log");
    const { toolset } = await hostile({ cancelLog });
    const controller = new AbortController();
    const pending = toolset.handle(call("c1", "mcp__hostile__wait", { tag: "first" }), { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    const result = await pending;
    expect(result.return_value).toMatchObject({ is_error: true, message: "The tool call was cancelled before it finished." });
    await expect.poll(() => readFile(cancelLog, "utf8").catch(() => "")).toBe("cancelled first\n");
  });

  it("fails closed: without an approval in the tool context a call does not run (as the soul's askApproval refuses)", async () => {
    const cancelLog = path.join(await tempDir(), "cancelled.log");
    const server = new McpServerConnection("hostile", hostileStdio({ cancelLog }), { callTimeoutMs: 60_000 });
    open.push(server);
    await server.connect();
    const result = await new McpToolset([server]).handle(call("c1", "mcp__hostile__structured"));
    expect(result.return_value).toMatchObject({ is_error: true, message: NO_APPROVAL_CHANNEL_MESSAGE });
    const rejecting = { request: async () => ({ approved: false as const, rejection: toolError({ message: "no" }) }) };
    const refused = await new McpToolset([server], { approval: rejecting }).handle(call("c2", "mcp__hostile__structured"));
    expect(refused.return_value).toMatchObject({ is_error: true, message: "no" });
    // The soul's approval in the tool context wins over the toolset's own.
    const approved = await new McpToolset([server], { approval: rejecting }).handle(call("c3", "mcp__hostile__structured"), { context: { approval: approveAll } });
    expect(approved.return_value.output).toBe('{"answer":42}');
  });

  it("times out a call that does not finish, cancels it on the server, and says so", async () => {
    const cancelLog = path.join(await tempDir(), "cancelled.log");
    const { toolset } = await hostile({ cancelLog, callTimeoutMs: 300 });
    const result = await toolset.handle(call("c1", "mcp__hostile__wait", { tag: "slow" }));
    expect(result.return_value).toMatchObject({ is_error: true, message: "The tool `wait` of MCP server `hostile` did not finish in time and was cancelled." });
    await expect.poll(() => readFile(cancelLog, "utf8").catch(() => "")).toBe("cancelled slow\n");
  });

  it("caps a flood of output and makes its control characters visible", async () => {
    const { toolset } = await hostile();
    const result = await toolset.handle(call("c1", "mcp__hostile__flood"));
    const text = textOf(result.return_value.output);
    expect(text.startsWith("start\\x1b[2J\\x07\\rxxx")).toBe(true);
    expect(text).toMatch(/\[output truncated: \d+ more characters not shown\]$/);
    expect(text.length).toBeLessThan(30_100);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    const description = toolset.tools.find((tool) => tool.name === "mcp__hostile__flood")!.description;
    expect(description).toBe("Returns 200,000 characters \\x1b[2J with control characters.");
  });

  it("turns isError into an error result the model reads, its text made printable", async () => {
    const { toolset } = await hostile();
    const result = await toolset.handle(call("c1", "mcp__hostile__fail"));
    expect(result.return_value).toMatchObject({ is_error: true, output: "disk \\x1b[1mfull\\x1b[0m" });
    expect(toolResultToMessage(result).content).toEqual([
      { type: "text", text: "<system>ERROR: The MCP tool `fail` of server `hostile` reported an error.</system>" },
      { type: "text", text: "disk \\x1b[1mfull\\x1b[0m" },
    ]);
  });

  it("maps structured content, media, embedded resources and links to parts, refusing what a model cannot read", async () => {
    const { toolset } = await hostile();
    expect((await toolset.handle(call("c1", "mcp__hostile__structured"))).return_value.output).toBe('{"answer":42}');
    const blobs = (await toolset.handle(call("c2", "mcp__hostile__blobs"))).return_value.output;
    expect(blobs).toEqual([
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", id: null } },
      { type: "text", text: "[image (image/svg+xml): 8 characters of binary data of a type the model cannot read not shown]" },
      { type: "text", text: "[resource file:///notes.txt (text/plain)]\nthe notes" },
      { type: "text", text: "[file:///a.bin (application/octet-stream): 4 characters of binary data of a type the model cannot read not shown]" },
      { type: "text", text: "[resource link: b.txt <file:///b.txt> (text/plain)]" },
    ]);
  });

  it("names tools with odd or long names within what providers accept, and calls them by their own name", async () => {
    const { toolset } = await hostile();
    const names = toolset.tools.map((tool) => tool.name);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const odd = names.find((name) => name.startsWith("mcp__hostile__a_tool_with_odd_chars_"))!;
    expect(odd).toMatch(/^mcp__hostile__a_tool_with_odd_chars_[0-9a-f]{8}$/);
    expect((await toolset.handle(call("c1", odd))).return_value.output).toBe("odd");
    const long = names.find((name) => name.startsWith("mcp__hostile__xxx"))!;
    expect(long).toHaveLength(64);
    expect((await toolset.handle(call("c2", long))).return_value.output).toBe("long");
  });

  it("follows tools/list_changed: a tool added at run time is offered and callable", async () => {
    const { toolset, events } = await hostile();
    expect(toolset.tools.map((tool) => tool.name)).not.toContain("mcp__hostile__added");
    await toolset.handle(call("c1", "mcp__hostile__grow"));
    await expect.poll(() => toolset.tools.map((tool) => tool.name)).toContain("mcp__hostile__added");
    expect(events.at(-1)).toMatchObject({ type: "tools_changed", server: "hostile" });
    expect((await toolset.handle(call("c2", "mcp__hostile__added"))).return_value.output).toBe("I was added");
  });

  it("ends a call that hangs when the host closes the server, saying the server was closed (not that it crashed or restarts)", async () => {
    const { server, toolset } = await hostile();
    const pending = toolset.handle(call("c1", "mcp__hostile__wait", { tag: "closing" }));
    // As in the cancellation test above: the call is on the server by then.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.close();
    expect((await pending).return_value).toMatchObject({
      is_error: true,
      message: "The MCP server `hostile` was closed by kosong while running the tool `wait`; the call did not finish.",
      display: [{ type: "brief", text: "MCP server closed" }],
    });
  });

  it("restarts a server that crashed mid-call once, reports it, and gives up after a second crash", async () => {
    const { server, toolset, events } = await hostile();
    const first = await toolset.handle(call("c1", "mcp__hostile__crash"));
    expect(first.return_value).toMatchObject({ is_error: true, display: [{ type: "brief", text: "MCP server crashed" }] });
    expect(first.return_value.message).toBe(
      "The MCP server exited while running the tool `crash` of MCP server `hostile`. It is being restarted; the call was not retried (it may have had effects): call the tool again if needed.",
    );
    await expect.poll(() => server.state).toBe("connected");
    expect(server.restarts).toBe(1);
    expect(events.map((e) => e.type)).toEqual(["connected", "crashed", "restarted"]);
    expect(events[1]).toMatchObject({ restarting: true });
    // Its stderr is kept for the report, control characters escaped.
    expect((events[1] as { error: string }).error).toContain("fatal: \\x1b[31mout of cheese\\x1b[0m");
    expect((await toolset.handle(call("c2", "mcp__hostile__fail"))).return_value.output).toBe("disk \\x1b[1mfull\\x1b[0m");

    const second = await toolset.handle(call("c3", "mcp__hostile__crash"));
    expect(second.return_value.message).toContain("It was not started again: do without its tools.");
    expect(server.state).toBe("failed");
    expect(server.error).toContain("(after 1 restart; not started again)");
    expect(toolset.tools).toEqual([]);
    const after = await toolset.handle(call("c4", "mcp__hostile__fail"));
    expect(after.return_value).toMatchObject({ is_error: true, message: "Tool `mcp__hostile__fail` not found" });
    expect(events.map((e) => e.type)).toEqual(["connected", "crashed", "restarted", "crashed", "failed"]);
  });

  it("reports a server that never answers initialize, with its stderr, and a command that does not exist", async () => {
    const mcp = await connectMcpServers(
      { mute: hostileStdio({ mute: true }), missing: { command: "kosong-no-such-mcp-server" } },
      // Long enough for a loaded machine to start node and the server to write its stderr.
      { connectTimeoutMs: 4000 },
    );
    open.push(mcp);
    expect(mcp.failures.map((f) => [f.server, f.message])).toEqual([
      ["mute", "MCP server `mute` could not be started: did not answer `initialize` within 4000 ms; its stderr ended with:\nmute server: reading stdin, never answering"],
      ["missing", "MCP server `missing` could not be started: spawn kosong-no-such-mcp-server ENOENT"],
    ]);
    expect(mcp.servers.map((s) => s.state)).toEqual(["failed", "failed"]);
    expect(mcp.toolset.tools).toEqual([]);
  });

  it("reports an HTTP endpoint that accepts the connection but never answers", async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const mcp = await connectMcpServers({ silent: { url: `http://127.0.0.1:${port}/mcp` } }, { connectTimeoutMs: 500 });
      open.push(mcp);
      expect(mcp.failures.map((f) => f.message)).toEqual(["MCP server `silent` could not be started: did not answer `initialize` within 500 ms"]);
      expect(mcp.toolset.tools).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("withMcpTools: one toolset with the host's tools and the server's, each call to its owner", async () => {
    const { toolset } = await hostile();
    const own = defineTool({ name: "Add", description: "Adds.", parameters: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }) => String(a + b) });
    const both = withMcpTools(new SimpleToolset([own]), toolset);
    expect(both.tools.map((tool) => tool.name)).toEqual(["Add", ...toolset.tools.map((tool) => tool.name)]);
    expect((await both.handle(call("c1", "Add", { a: 1, b: 2 }))).return_value.output).toBe("3");
    expect((await both.handle(call("c2", "mcp__hostile__structured"))).return_value.output).toBe('{"answer":42}');
    expect((await both.handle(call("c3", "mcp__hostile__nothing"))).return_value.message).toBe("Tool `mcp__hostile__nothing` not found");
  });
});
