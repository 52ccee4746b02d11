/**
 * `serveAcp`: serves a soul-based agent over ACP (the Agent Client
 * Protocol of Zed, JetBrains, Neovim and Emacs clients) on the official
 * `@agentclientprotocol/sdk`: `initialize` with the capabilities the host
 * really has, `session/new` and `session/load` (the stored conversation
 * replayed as updates), `session/prompt` streaming text, thinking and tool
 * calls as `session/update`s, approvals as `session/request_permission`
 * (failing closed; also those asked while no prompt runs, by the host's
 * background work), and `session/cancel`.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { agent, PROTOCOL_VERSION, RequestError, type AgentContext, type ClientCapabilities, type McpServer, type PromptResponse, type RequestPermissionRequest, type Stream } from "@agentclientprotocol/sdk";
import type { ApprovalKind, Soul, SoulEventOf, TurnResult } from "@kosong/soul";
import type { AcpAgentHost, AcpSession, AcpSessionRequest, McpTools } from "./acp-host.js";
import { clientBridge } from "./client-bridge.js";
import { promptInput } from "./prompt-input.js";
import { historyUpdates, ToolCallTracker, toolKind } from "./session-updates.js";

/** Options of {@link serveAcp}. */
export interface ServeAcpOptions {
  /** Closes the connection: running turns are aborted and every session closed. */
  signal?: AbortSignal;
}

interface Served {
  session: AcpSession;
  mcp: McpTools | null;
  /** Stops asking the client about approval requests made while no prompt runs. */
  unsubscribe: () => void;
  /** The running prompt's abort controller, null when none runs. */
  turn: AbortController | null;
  /** Settles when the running prompt (if any) has ended. */
  idle: Promise<unknown>;
}

const permissionOptions = [
  { optionId: "approve", name: "Allow", kind: "allow_once" },
  { optionId: "approve_for_session", name: "Allow for this session", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
] as const;

/**
 * Serves `host` on `stream` (e.g. `ndJsonStream(Writable.toWeb(stdout),
 * Readable.toWeb(stdin))`) until the client disconnects or `options.signal`
 * aborts; then aborts running turns, closes every session and resolves.
 */
export async function serveAcp(host: AcpAgentHost, stream: Stream, options: ServeAcpOptions = {}): Promise<void> {
  const sessions = new Map<string, Served>();
  let capabilities: ClientCapabilities | undefined;

  const open = async (client: AgentContext, cwd: string, servers: McpServer[], make: (request: AcpSessionRequest) => Promise<AcpSession>): Promise<Served> => {
    let id: string | null = null;
    const mcp = servers.length > 0 && host.connectMcpServers ? await host.connectMcpServers(servers, { cwd }) : null;
    if (servers.length > 0 && !host.connectMcpServers) process.stderr.write(`${host.info.name}: ${servers.length} MCP server(s) from the client ignored: this agent has no MCP support\n`);
    try {
      const session = await make({ cwd, mcpTools: mcp?.toolset ?? null, client: clientBridge(client, () => id!, capabilities) });
      id = session.id;
      const sessionId = id;
      // A request made while no prompt runs (work the host runs in the background, such as a background subagent) is asked too.
      const unsubscribe = session.soul.approval.subscribe((event) => {
        if (event.type === "ApprovalRequest" && !session.soul.running) void askPermission(session.soul, client, sessionId, event, undefined);
      });
      const served: Served = { session, mcp, unsubscribe, turn: null, idle: Promise.resolve() };
      sessions.set(id, served);
      return served;
    } catch (error) {
      await mcp?.close();
      throw error;
    }
  };

  const app = agent({ name: host.info.name })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities;
      const mcp = host.connectMcpServers ? { http: host.mcpTransports?.http ?? true, sse: host.mcpTransports?.sse ?? false } : { http: false, sse: false };
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: host.info,
        agentCapabilities: {
          loadSession: host.loadSession !== undefined,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: mcp,
        },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      await checkCwd(params.cwd);
      const served = await open(client, params.cwd, params.mcpServers, (request) => host.newSession(request));
      return { sessionId: served.session.id };
    })
    .onRequest("session/load", async ({ params, client }) => {
      const load = host.loadSession;
      if (load === undefined) throw RequestError.methodNotFound("session/load");
      await checkCwd(params.cwd);
      // A protocol's ids are exact: an id of this workspace, checked before anything (the editor's MCP servers included) starts.
      if (!params.sessionId.isWellFormed() || (host.hasSession !== undefined && !(await host.hasSession(params.sessionId, params.cwd)))) {
        throw RequestError.invalidParams(undefined, `no session ${JSON.stringify(params.sessionId)} of ${JSON.stringify(params.cwd)}`);
      }
      // Loading a session this connection has open replaces it: close it first (its files may be locked).
      const current = sessions.get(params.sessionId);
      if (current !== undefined) {
        current.turn?.abort();
        sessions.delete(params.sessionId);
        await closeServed(current);
      }
      const served = await open(client, params.cwd, params.mcpServers, (request) => load.call(host, params.sessionId, request));
      for (const update of historyUpdates(served.session.soul.context.history)) await client.notify("session/update", { sessionId: params.sessionId, update });
      return {};
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const served = sessions.get(params.sessionId);
      if (served === undefined) throw RequestError.invalidParams(undefined, `no session ${params.sessionId}`);
      if (served.turn !== null) throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
      const running = runPrompt(served, client, params.sessionId, promptInput(params.prompt));
      served.idle = running.catch(() => undefined);
      return running;
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.turn?.abort();
    });

  const connection = app.connect(stream);
  const onAbort = () => connection.close();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) connection.close();
  try {
    await connection.closed;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    for (const served of sessions.values()) served.turn?.abort();
    await Promise.allSettled([...sessions.values()].map(closeServed));
  }
}

/** Refuses (invalid params) a working directory that is not an absolute path to an existing folder. */
async function checkCwd(cwd: string): Promise<void> {
  if (!path.isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  const stats = await stat(cwd).catch(() => null);
  if (stats === null || !stats.isDirectory()) throw RequestError.invalidParams(undefined, `cwd is not a folder: ${JSON.stringify(cwd)}`);
}

/** Closes a session once its running turn (already aborted) has ended. */
async function closeServed(served: Served): Promise<void> {
  served.unsubscribe();
  await served.idle;
  await served.session.close();
  await served.mcp?.close();
}

async function runPrompt(served: Served, client: AgentContext, sessionId: string, input: ReturnType<typeof promptInput>): Promise<PromptResponse> {
  const controller = new AbortController();
  served.turn = controller;
  const soul = served.session.soul;
  try {
    const turn = soul.run(input, { signal: controller.signal });
    const tracker = new ToolCallTracker();
    for await (const event of turn) {
      if (event.type === "ApprovalRequest") void askPermission(soul, client, sessionId, event, tracker.rawInput(event.payload.tool_call_id));
      const update = tracker.update(event);
      if (update) await client.notify("session/update", { sessionId, update }).catch(() => controller.abort());
    }
    return { stopReason: stopReason(await turn.result) };
  } finally {
    served.turn = null;
  }
}

/** Asks the client; anything but a known option (an error, a cancelled request) rejects. */
async function askPermission(soul: Soul, client: AgentContext, sessionId: string, event: SoulEventOf<"ApprovalRequest">, rawInput: unknown): Promise<void> {
  const { id, tool_call_id, sender, description, scope, once } = event.payload;
  let kind: ApprovalKind = "reject";
  try {
    const request: RequestPermissionRequest = {
      sessionId,
      toolCall: { toolCallId: tool_call_id, title: description, kind: toolKind(sender), status: "pending", ...(rawInput !== undefined && { rawInput }) },
      // "Allow for this session" says what it covers when the tool gives a scope (e.g. "`git status` commands"); a request approved once only has no such option.
      options: permissionOptions
        .filter((option) => !(once === true && option.optionId === "approve_for_session"))
        .map((option) => ({ ...option, ...(option.optionId === "approve_for_session" && scope !== undefined && { name: `${option.name}: ${scope}` }) })),
    };
    const response = await client.request("session/request_permission", request);
    const chosen = response.outcome.outcome === "selected" ? response.outcome.optionId : null;
    kind = permissionOptions.find((option) => option.optionId === chosen)?.optionId ?? "reject";
  } catch {
    kind = "reject";
  }
  try {
    soul.approval.respond(id, kind);
  } catch {
    // The call was cancelled meanwhile: nothing waits for this answer.
  }
}

function stopReason(result: TurnResult): PromptResponse["stopReason"] {
  switch (result.stopReason) {
    case "no_tool_calls":
    case "tool_rejected":
      return "end_turn";
    case "max_steps":
      return "max_turn_requests";
    case "aborted":
      return "cancelled";
    case "error":
      throw RequestError.internalError(undefined, result.error?.message ?? "the turn failed");
  }
}

