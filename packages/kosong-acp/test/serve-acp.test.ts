/**
 * serveAcp in process, driven by the ACP SDK's client over an in-memory
 * stream pair: approvals failing closed, the MCP seam, the editor's
 * terminal and file system reaching the host, and cleanup on disconnect.
 */
import { spawn } from "node:child_process";
import { client, type AnyMessage, type ClientContext, type Stream } from "@agentclientprotocol/sdk";
import { serveAcp, type AcpAgentHost, type AcpSessionRequest, type ClientBridge } from "@kosong/acp";
import { defineTool, SimpleToolset, toolOk } from "@kosong/core";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { MemoryContextLog } from "@kosong/context";
import { Context, Soul } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ran: string[] = [];
const shell = defineTool({
  name: "Shell",
  description: "Runs a command.",
  parameters: z.object({ command: z.string() }),
  async execute({ command }, { approval }) {
    const answer = await approval!.request("run command", command);
    if (!answer.approved) return answer.rejection;
    ran.push(command);
    return toolOk(`ran ${command}`);
  },
});

const call = (id: string, command: string) => `tool_call: ${JSON.stringify({ id, name: "Shell", arguments: JSON.stringify({ command }) })}`;

/** Two connected in-memory ACP streams. */
function streamPair(): { agent: Stream; client: Stream } {
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  return { agent: { writable: toClient.writable, readable: toAgent.readable }, client: { writable: toAgent.writable, readable: toClient.readable } };
}

/** A host whose sessions run `scripts` with the Shell tool, recording what it was given. */
function testHost(scripts: string[], extra: Partial<AcpAgentHost> = {}) {
  const requests: AcpSessionRequest[] = [];
  const closed: string[] = [];
  const host: AcpAgentHost = {
    info: { name: "test-agent", version: "0.0.1" },
    async newSession(request) {
      requests.push(request);
      const context = new Context(new MemoryContextLog());
      await context.restore();
      const soul = new Soul({ agent: { name: "test", systemPrompt: "Test.", toolset: new SimpleToolset([shell]) }, provider: new ScriptedChatProvider(scripts), context });
      const id = `s${requests.length}`;
      return { id, soul, close: async () => void closed.push(id) };
    },
    ...extra,
  };
  return { host, requests, closed };
}

type Permission = (ctx: { params: { toolCall: { title?: string | null } } }) => Promise<{ outcome: { outcome: "selected"; optionId: string } | { outcome: "cancelled" } }>;

async function drive<T>(host: AcpAgentHost, permission: Permission, op: (ctx: ClientContext) => Promise<T>, capabilities: object = {}): Promise<T> {
  const pair = streamPair();
  const stop = new AbortController();
  const served = serveAcp(host, pair.agent, { signal: stop.signal });
  const app = client({ name: "test" })
    .onNotification("session/update", () => undefined)
    .onRequest("session/request_permission", permission as never)
    .onRequest("terminal/create", ({ params }) => terminals.create(params.command, params.args ?? [], params.cwd ?? process.cwd()))
    .onRequest("terminal/wait_for_exit", ({ params }) => terminals.wait(params.terminalId))
    .onRequest("terminal/output", ({ params }) => terminals.output(params.terminalId))
    .onRequest("terminal/release", () => ({}))
    .onRequest("terminal/kill", () => ({}));
  const result = await app.connectWith(pair.client, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: capabilities });
    return op(ctx);
  });
  stop.abort();
  await served;
  return result;
}

/** The editor's terminals: real bash processes. */
const terminals = (() => {
  const runs = new Map<string, { output: string; exit: Promise<{ exitCode: number | null; signal: string | null }> }>();
  return {
    create(command: string, args: string[], cwd: string) {
      const child = spawn(command, args, { cwd });
      const run = { output: "", exit: new Promise<{ exitCode: number | null; signal: string | null }>((resolve) => child.on("close", (code, signal) => resolve({ exitCode: code, signal }))) };
      child.stdout.on("data", (chunk: Buffer) => (run.output += chunk.toString()));
      const terminalId = `t${runs.size + 1}`;
      runs.set(terminalId, run);
      return { terminalId };
    },
    wait: (id: string) => runs.get(id)!.exit,
    output: async (id: string) => ({ output: runs.get(id)!.output, truncated: false }),
  };
})();

describe("serveAcp", () => {
  it("fails closed: a permission request the client fails, or answers with an unknown option, rejects the call", async () => {
    ran.length = 0;
    const { host } = testHost([call("c1", "rm -rf /"), call("c2", "ls")]);
    let asked = 0;
    const reasons = await drive(
      host,
      async () => {
        asked++;
        if (asked === 1) throw new Error("the editor crashed");
        return { outcome: { outcome: "selected", optionId: "yes-please" } };
      },
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd: "/tmp", mcpServers: [] });
        const first = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "one" }] });
        const second = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "two" }] });
        return [first.stopReason, second.stopReason];
      },
    );
    expect(reasons).toEqual(["end_turn", "end_turn"]);
    expect(asked).toBe(2);
    expect(ran).toEqual([]);
  });

  it("hands the editor's MCP servers to connectMcpServers, gives their tools to the session, and closes both on disconnect", async () => {
    const mcpTools = new SimpleToolset([defineTool({ name: "mcp_echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: async ({ text }) => toolOk(`echo ${text}`) })]);
    const connected: unknown[] = [];
    let mcpClosed = 0;
    const { host, requests, closed } = testHost(["text: hi"], {
      connectMcpServers: async (servers, { cwd }) => {
        connected.push({ servers, cwd });
        return { toolset: mcpTools, close: async () => void mcpClosed++ };
      },
    });
    const server = { name: "files", command: "mcp-files", args: ["--root", "."], env: [] };
    const init = await drive(host, async () => ({ outcome: { outcome: "cancelled" } }), async (ctx) => {
      await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [server] });
      await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
      return ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    });
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false });
    expect(connected).toEqual([{ servers: [server], cwd: process.cwd() }]);
    expect(requests[0]!.mcpTools).toBe(mcpTools);
    expect(requests[1]!.mcpTools).toBeNull();
    expect(closed.sort()).toEqual(["s1", "s2"]);
    expect(mcpClosed).toBe(1);

    const bare = testHost([]);
    const plain = await drive(bare.host, async () => ({ outcome: { outcome: "cancelled" } }), (ctx) => ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }));
    expect(plain.agentCapabilities).toMatchObject({ loadSession: false, mcpCapabilities: { http: false, sse: false } });
  });

  it("gives the host the editor's terminal when offered (commands really run there) and no file system when not", async () => {
    const { host, requests } = testHost([]);
    const run = await drive(
      host,
      async () => ({ outcome: { outcome: "cancelled" } }),
      async (ctx) => {
        await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
        const bridge: ClientBridge = requests[0]!.client;
        return bridge.runCommand!({ command: "echo from-the-editor; exit 3", cwd: process.cwd(), timeoutMs: 10_000, signal: new AbortController().signal });
      },
      { terminal: true },
    );
    expect(run).toEqual({ output: "from-the-editor\n", exitCode: 3, signal: null, timedOut: false });
    expect(requests[0]!.client.readTextFile).toBeNull();
    expect(requests[0]!.client.writeTextFile).toBeNull();
  });

  it("puts a choice to the editor's user as a permission request with the choice's options; an unknown option or an error is no choice", async () => {
    const { host, requests } = testHost([]);
    const answers: unknown[] = [{ outcome: { outcome: "selected", optionId: "option-1" } }, { outcome: { outcome: "selected", optionId: "option-7" } }, { outcome: { outcome: "selected", optionId: "approve" } }];
    const seen: unknown[] = [];
    const chosen = await drive(
      host,
      (async (ctx: { params: unknown }) => {
        seen.push(ctx.params);
        const answer = answers.shift();
        if (answer === undefined) throw new Error("the editor failed");
        return answer;
      }) as unknown as Permission,
      async (ctx) => {
        const { sessionId } = await ctx.request("session/new", { cwd: process.cwd(), mcpServers: [] });
        const choice = { toolCallId: "q1", title: "Which language?", options: [{ label: "Python", description: "large ecosystem" }, { label: "Rust" }] };
        const picks = [];
        for (let i = 0; i < 4; i++) picks.push(await requests[0]!.client.choose(choice));
        return { sessionId, picks };
      },
    );
    expect(chosen.picks).toEqual([1, null, null, null]);
    expect(seen[0]).toMatchObject({
      sessionId: chosen.sessionId,
      toolCall: { toolCallId: "q1", title: "Which language?", content: [{ type: "content", content: { type: "text", text: "- Python: large ecosystem" } }] },
      options: [
        { optionId: "option-0", name: "Python", kind: "allow_once" },
        { optionId: "option-1", name: "Rust", kind: "allow_once" },
      ],
    });
  });

  it("closes a session this connection has open before loading it again (its files may be locked)", async () => {
    const order: string[] = [];
    const host: AcpAgentHost = {
      info: { name: "test-agent", version: "0.0.1" },
      newSession: () => Promise.reject(new Error("unused")),
      async loadSession(id) {
        order.push(`open ${id}`);
        const context = new Context(new MemoryContextLog());
        await context.restore();
        const soul = new Soul({ agent: { name: "test", systemPrompt: "Test.", toolset: new SimpleToolset([]) }, provider: new ScriptedChatProvider([]), context });
        return { id, soul, close: async () => void order.push(`close ${id}`) };
      },
    };
    await drive(host, async () => ({ outcome: { outcome: "cancelled" } }), async (ctx) => {
      await ctx.request("session/load", { sessionId: "abc", cwd: process.cwd(), mcpServers: [] });
      await ctx.request("session/load", { sessionId: "abc", cwd: process.cwd(), mcpServers: [] });
    });
    expect(order).toEqual(["open abc", "close abc", "open abc", "close abc"]);
  });
  it("asks hasSession before a load and refuses an unknown id (or a bad cwd) with invalid params, before the editor's MCP servers start", async () => {
    const connected: unknown[] = [];
    const asked: [string, string][] = [];
    const loaded: string[] = [];
    const { host } = testHost([], {
      hasSession: async (id, cwd) => (asked.push([id, cwd]), id === "known"),
      loadSession: async (id, request) => {
        loaded.push(id);
        return host.newSession(request);
      },
      connectMcpServers: async (servers) => {
        connected.push(servers);
        return { toolset: new SimpleToolset([]), close: async () => undefined };
      },
    });
    const server = { name: "files", command: "mcp-files", args: [], env: [] };
    const codes = await drive(host, async () => ({ outcome: { outcome: "cancelled" } }), async (ctx) => {
      const code = (request: Promise<unknown>) => request.then(() => null, (error: { code?: number }) => error.code);
      return [
        await code(ctx.request("session/load", { sessionId: "know", cwd: process.cwd(), mcpServers: [server] })),
        await code(ctx.request("session/load", { sessionId: "known", cwd: "relative", mcpServers: [server] })),
        await code(ctx.request("session/new", { cwd: "relative", mcpServers: [server] })),
        await code(ctx.request("session/load", { sessionId: "known", cwd: process.cwd(), mcpServers: [server] })),
      ];
    });
    expect(codes).toEqual([-32602, -32602, -32602, null]);
    expect(asked).toEqual([["know", process.cwd()], ["known", process.cwd()]]);
    expect(loaded).toEqual(["known"]);
    expect(connected).toHaveLength(1);
  });
});
