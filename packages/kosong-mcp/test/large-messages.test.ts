/**
 * What a stdio server sends is capped while it is read, in time linear in
 * its size, and one bad tool never costs the others: against a real child
 * process written without the SDK (../fixtures/raw-server.mjs), a 50 MB
 * result comes back (capped for the model) well within its call's timeout,
 * a message over `maxMessageBytes` fails its call saying so and the server
 * is restarted, and a tool whose schema nests 2,500 levels, or whose
 * definition the MCP schema refuses, is left out while the server's other
 * tools stay.
 */
import { fileURLToPath } from "node:url";
import { McpServerConnection, McpToolset, type McpConnectionOptions } from "@kosong/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { approveEveryCall, call } from "./helpers/servers.js";

const script = fileURLToPath(new URL("./fixtures/raw-server.mjs", import.meta.url));
const open: McpServerConnection[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function raw(options: McpConnectionOptions = {}, env: Record<string, string> = {}) {
  const server = new McpServerConnection("raw", { command: process.execPath, args: [script], env }, options);
  open.push(server);
  await server.connect();
  return { server, toolset: new McpToolset([server], { approval: approveEveryCall }) };
}

const text = (output: unknown) => (typeof output === "string" ? output : JSON.stringify(output));

describe("large and deep messages from a stdio MCP server", () => {
  it("reads a 50 MB result in time linear in its size: it comes back capped for the model, within a 20 s call timeout", async () => {
    const { toolset } = await raw({ callTimeoutMs: 20_000 });
    const result = await toolset.handle(call("c1", "mcp__raw__big", { bytes: 50_000_000 }));
    expect(result.return_value.is_error, text(result.return_value)).toBe(false);
    const output = text(result.return_value.output);
    expect(output.startsWith("xxxxxxxx")).toBe(true);
    expect(output).toMatch(/\[output truncated: \d+ more characters not shown\]$/);
    expect(output.length).toBeLessThan(100_000);
  }, 60_000);

  it("cuts off a message over maxMessageBytes while reading it: the call fails saying so, the server is restarted and answers again", async () => {
    const { server, toolset } = await raw({ maxMessageBytes: 8 * 1024 * 1024, callTimeoutMs: 20_000 });
    const result = await toolset.handle(call("c1", "mcp__raw__big", { bytes: 12_000_000 }));
    expect(result.return_value).toMatchObject({
      is_error: true,
      message: expect.stringContaining(`The tool \`big\` of MCP server \`raw\` sent more than ${8 * 1024 * 1024} bytes: the result was dropped and the connection closed.`),
    });
    await expect.poll(() => server.state, { timeout: 30_000 }).toBe("connected");
    expect(server.restarts).toBe(1);
    expect((await toolset.handle(call("c2", "mcp__raw__echo", { text: "still here" }))).return_value.output).toBe("still here");
  }, 60_000);

  it("leaves out a tool whose input schema nests 2,500 levels deep and keeps the server's other tools", async () => {
    const { server, toolset } = await raw({}, { DEPTH: "2500" });
    expect(server.state).toBe("connected");
    expect(server.tools.map((tool) => tool.name)).toEqual(["echo", "big"]);
    expect(server.warnings).toEqual(["tool `deep` is left out: its input schema nests more than 100 levels deep"]);
    expect((await toolset.handle(call("c1", "mcp__raw__echo", { text: "hello" }))).return_value.output).toBe("hello");
  });

  it("leaves out tools whose definitions are invalid (an input schema not of type object, none, a name not a string) and keeps the others", async () => {
    const { server, toolset } = await raw({}, { INVALID: "1" });
    expect(server.state).toBe("connected");
    expect(server.tools.map((tool) => tool.name)).toEqual(["echo", "big"]);
    expect(server.warnings).toEqual([
      expect.stringMatching(/^tool `wrong-type` is left out: its definition is invalid \(inputSchema\.type: /),
      expect.stringMatching(/^tool `no-schema` is left out: its definition is invalid \(inputSchema: /),
      expect.stringMatching(/^tool `number 5` is left out: its definition is invalid \(name: /),
    ]);
    expect((await toolset.handle(call("c1", "mcp__raw__echo", { text: "hello" }))).return_value.output).toBe("hello");
  });

  it("answers a burst of 2,000 tools/list_changed notifications with at most two listings, and offers the changed tools", async () => {
    const { server } = await raw();
    // `burst` and `lists` are not listed: called on the connection directly.
    await server.callTool("burst", { count: 2000 });
    await expect.poll(() => server.tools.map((tool) => tool.name)).toContain("added");
    // Calls keep going through the same pipe meanwhile; a listing queued per notification would keep counting up.
    for (let i = 0; i < 20; i++) await server.callTool("lists", {});
    const lists = await server.callTool("lists", {});
    expect(Number((lists.content[0] as { text: string }).text)).toBeLessThanOrEqual(3);
  });

  it("offers the first 1,000 tools of a server that lists 5,000, and says the rest were left out", async () => {
    const { server, toolset } = await raw({}, { MANY: "5000" });
    expect(server.tools).toHaveLength(1000);
    expect(server.tools.slice(0, 3).map((tool) => tool.name)).toEqual(["echo", "big", "t0"]);
    expect(server.warnings).toEqual(["the server lists more tools than kosong reads: only the first 1000 are offered"]);
    expect((await toolset.handle(call("c1", "mcp__raw__echo", { text: "hello" }))).return_value.output).toBe("hello");
  });
});
