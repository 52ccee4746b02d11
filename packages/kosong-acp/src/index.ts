/**
 * @kosong/acp: serve any soul-based agent over ACP, the Agent Client
 * Protocol of Zed and other editors (`kosong acp` is a thin use of it).
 */
export { serveAcp, type ServeAcpOptions } from "./serve-acp.js";
export type { AcpAgentHost, AcpSession, AcpSessionRequest, ConnectMcpServers, McpTools } from "./acp-host.js";
export type { ClientBridge, ClientCommand, ClientCommandResult } from "./client-bridge.js";
export type { ClientChoice, ClientChoiceOption } from "./client-choice.js";
export { promptInput } from "./prompt-input.js";
export { historyUpdates } from "./session-updates.js";
export { stdioStream } from "./stdio-stream.js";
