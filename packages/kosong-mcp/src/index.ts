/**
 * @kosong/mcp: tools from MCP servers (stdio and streamable HTTP) as a
 * @kosong/core `Toolset`, on the official `@modelcontextprotocol/sdk`.
 */
export * from "./mcp-config.js";
export { expandVariables } from "./expand-variables.js";
export * from "./mcp-errors.js";
export * from "./mcp-server-connection.js";
export * from "./mcp-toolset.js";
export * from "./connect-mcp-servers.js";
export { defaultResultLimits, type ResultLimits, toolResultFromMcp, type ToolLabel } from "./tool-result.js";
export { maxToolNameLength, qualifiedToolNames, type ToolIdentity } from "./tool-names.js";
export { visibleText } from "./server-text.js";
