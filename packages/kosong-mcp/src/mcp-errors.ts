/**
 * The errors @kosong/mcp throws: a config that cannot be used, and a server
 * that could not be connected. Both are {@link KosongError}s, branded so that
 * `isInstance` works across duplicate installs.
 */
import { createErrorMarker, KosongError, type KosongErrorOptions } from "@kosong/core";

const configMarker = createErrorMarker("@kosong/mcp.error.McpConfigError");

/** An MCP config (a `mcpServers` object or file) that is not valid: the message names the source and the key. */
export class McpConfigError extends KosongError {
  constructor(message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    configMarker.mark(this);
  }

  /** True when `value` is an McpConfigError from any copy of this package. */
  static override isInstance(value: unknown): value is McpConfigError {
    return configMarker.is(value);
  }
}

const connectMarker = createErrorMarker("@kosong/mcp.error.McpConnectError");

/**
 * A server that could not be started or connected: the command was not
 * found, the process exited, or it did not answer `initialize` in time. The
 * message names the server and says why (with the end of its stderr, made
 * printable, when it wrote any).
 */
export class McpConnectError extends KosongError {
  /** The server's name in the config. */
  readonly server: string;

  constructor(server: string, message: string, options: KosongErrorOptions = {}) {
    super(message, options);
    this.server = server;
    connectMarker.mark(this);
  }

  /** True when `value` is an McpConnectError from any copy of this package. */
  static override isInstance(value: unknown): value is McpConnectError {
    return connectMarker.is(value);
  }
}
