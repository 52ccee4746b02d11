/**
 * The errors @kosong/mcp throws: a config that cannot be used, and a server
 * that could not be connected. Both are {@link KosongError}s, branded so that
 * `isInstance` works across duplicate installs.
 */
import { KosongError, type KosongErrorOptions } from "@kosong/core";

/** An MCP config (a `mcpServers` object or file) that is not valid: the message names the source and the key. */
export class McpConfigError extends KosongError {
  static override readonly brand: string = "@kosong/mcp.error.McpConfigError";
}

/**
 * A server that could not be started or connected: the command was not
 * found, the process exited, or it did not answer `initialize` in time. The
 * message names the server and says why (with the end of its stderr, made
 * printable, when it wrote any).
 */
export class McpConnectError extends KosongError {
  static override readonly brand: string = "@kosong/mcp.error.McpConnectError";

  /** The server's name in the config. */
  readonly server: string;

  constructor(server: string, message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    this.server = server;
  }
}
