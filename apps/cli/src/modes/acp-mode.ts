/**
 * ACP mode (`kosong acp`): serves kosong as an ACP agent on stdin/stdout
 * (see `@kosong/acp`), for Zed and other ACP editors. Each ACP session is a
 * saved kosong session (`session/load` takes its exact id, of the same working directory); the editor's file
 * system and terminal are used for the tools when it offers them, and the
 * MCP servers it passes are connected (with the launcher environment and
 * `${VAR}` expansion that configured servers get) (through `@kosong/mcp`, loaded only
 * then) and their tools added to the agent's. Ends when
 * stdin closes (exit 0) or on SIGTERM/SIGINT/SIGHUP (turns aborted, sessions
 * closed, exit 128+n). Diagnostics go to stderr only.
 */
import type { Toolset } from "@kosong/core";
import { serveAcp, stdioStream, type AcpAgentHost, type AcpSession, type AcpSessionRequest, type ConnectMcpServers } from "@kosong/acp";
import type { McpToolset } from "@kosong/mcp";
import packageJson from "../../package.json" with { type: "json" };
import { openAgentSession, type SessionChoice, warnOnStderr } from "../agent/agent-session.js";
import type { Settings } from "../config/settings.js";
import { acpQuestioner } from "../questions/acp-questioner.js";
import { exactSession } from "../sessions/session-store.js";
import type { Providers } from "../providers/create-provider.js";
import { serveUntilSignal } from "./stop-on-signals.js";

/** What ACP mode serves. */
export interface AcpModeOptions {
  settings: Settings;
  providers: Providers;
}

/** Serves until stdin closes or a signal arrives; returns the exit code. */
export function runAcpMode(options: AcpModeOptions): Promise<number> {
  // The editor's servers' toolsets, found again (with their type) from the Toolset @kosong/acp hands back in the session request.
  const editorMcp = new WeakMap<Toolset, McpToolset>();
  const connectMcpServers: ConnectMcpServers = async (servers, { cwd }) => {
    const [{ acpMcpConfig }, { connectReporting }, { withLauncherEnvironment }] = await Promise.all([import("../agent/acp-mcp-config.js"), import("../agent/mcp-tools.js"), import("../agent/mcp-launcher-environment.js")]);
    // As for the config file's servers: ${VAR} expanded, and a launcher's variables (proxy, CA, locale, npm config; no credentials) under the editor's env.
    const mcp = await connectReporting(withLauncherEnvironment(acpMcpConfig(servers, warnOnStderr, process.env), process.env), cwd, warnOnStderr, options.settings.mcpStartTimeoutMs);
    editorMcp.set(mcp.toolset, mcp.toolset);
    return { toolset: mcp.toolset, close: () => mcp.close() };
  };
  const open = async (choice: SessionChoice, request: AcpSessionRequest): Promise<AcpSession> => {
    const mcpTools = request.mcpTools && (editorMcp.get(request.mcpTools) ?? null);
    const agent = await openAgentSession({ ...options, choice, cwd: request.cwd, host: request.client, mcpTools });
    // AskUserQuestion: each single-choice question as a permission request whose options are the question's.
    const questioner = acpQuestioner(request.client);
    agent.questioner = () => questioner;
    // @kosong/acp asks the editor about a background agent's approval request between prompts too.
    agent.subagents.answersBetweenTurns = true;
    return { id: agent.displayId, soul: agent.soul, close: agent.close };
  };
  const host: AcpAgentHost = {
    info: { name: "kosong", title: "kosong", version: packageJson.version },
    newSession: (request) => open({ kind: "new" }, request),
    loadSession: (id, request) => open({ kind: "load", id }, request),
    hasSession: async (id, cwd) => (await exactSession(options.settings.home, cwd, id)) !== null,
    connectMcpServers,
    // @kosong/mcp speaks stdio and streamable HTTP, not SSE.
    mcpTransports: { http: true, sse: false },
  };
  return serveUntilSignal((signal) => serveAcp(host, stdioStream(), { signal }));
}
