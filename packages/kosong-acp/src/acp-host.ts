/**
 * What an agent built on the soul gives `serveAcp`: how to make (and load)
 * the soul of a session, and optionally how to turn the MCP servers an
 * editor passes into tools.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { Toolset } from "@kosong/core";
import type { Soul } from "@kosong/soul";
import type { ClientBridge } from "./client-bridge.js";

/** What a new or loaded session is made from. */
export interface AcpSessionRequest {
  /** The session's working directory (absolute, an existing folder, as the editor sent it). */
  cwd: string;
  /**
   * Tools of the MCP servers the editor passed, connected by the host's
   * `connectMcpServers`; null when there were none or the host has no MCP
   * support. Add them to the agent's tools.
   */
  mcpTools: Toolset | null;
  /** The editor's file system and terminal, where it offers them: use them for the tools so edits go through its buffers. */
  client: ClientBridge;
}

/** A session served over ACP. */
export interface AcpSession {
  /** The id the editor uses for it (and passes to `session/load` later). */
  id: string;
  /** The soul that runs its turns. */
  soul: Soul;
  /** Called when the connection closes (or the session is replaced): close the context. */
  close(): Promise<void>;
}

/** MCP servers connected as one toolset. */
export interface McpTools {
  toolset: Toolset;
  /** Disconnects the servers (called with the session's `close`). */
  close(): Promise<void>;
}

/**
 * The seam to an MCP client (such as `@kosong/mcp`): connects the servers
 * an editor passed in `session/new` / `session/load` and returns their tools.
 * A server that cannot start should be left out (and reported on stderr),
 * not fail the session.
 */
export type ConnectMcpServers = (servers: McpServer[], options: { cwd: string }) => Promise<McpTools>;

/** The agent served by {@link serveAcp}. */
export interface AcpAgentHost {
  /** Sent as `agentInfo` in `initialize`. */
  info: { name: string; version: string; title?: string };
  /** Makes the soul of a new session. */
  newSession(request: AcpSessionRequest): Promise<AcpSession>;
  /**
   * Opens a stored session by id (its conversation restored); without it
   * the agent does not advertise `loadSession`.
   */
  loadSession?(sessionId: string, request: AcpSessionRequest): Promise<AcpSession>;
  /**
   * Whether `sessionId` is exactly the id of a stored session of the
   * workspace `cwd` (no prefix, no other workspace's session). `session/load`
   * asks it before anything starts (the editor's MCP servers included) and
   * refuses any other id with invalid params. Give it with `loadSession`.
   */
  hasSession?(sessionId: string, cwd: string): Promise<boolean>;
  /** Connects the MCP servers the editor passes; without it they are ignored and `mcpCapabilities` says no HTTP/SSE. */
  connectMcpServers?: ConnectMcpServers;
  /** Which MCP transports besides stdio `connectMcpServers` supports (default: http). */
  mcpTransports?: { http?: boolean; sse?: boolean };
}
