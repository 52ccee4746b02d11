/**
 * The lines a stdio MCP server sends, cut into JSON-RPC messages in linear
 * time and capped while reading (internal). The SDK's own buffer copies
 * everything buffered on each chunk and searches it from the start again,
 * so a 20 MB message costs seconds and a 50 MB one more than a call's
 * timeout; here each chunk is searched once and a line is joined once.
 */
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const NEWLINE = 10;

/** A message longer than the cap: the connection is closed (the line is never buffered whole). */
export class McpMessageTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`sent a message of more than ${maxBytes} bytes (the limit); the connection was closed`);
    this.name = "McpMessageTooLargeError";
  }
}

/** Buffers a stdio stream into messages; the read buffer a stdio transport uses. */
export class JsonLineBuffer {
  readonly #maxBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #lines: Buffer[] = [];
  /** True after a line went over the cap: everything is ignored until {@link clear}. */
  #overflowed = false;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /**
   * Takes the next chunk of the stream.
   * @throws McpMessageTooLargeError once, as soon as a line passes the cap (later chunks are then dropped).
   */
  append(chunk: Buffer): void {
    if (this.#overflowed) return;
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, end);
      this.#check(piece.length);
      this.#lines.push(this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending, piece]));
      this.#pending = [];
      this.#pendingBytes = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#check(rest.length);
      this.#pending.push(rest);
      this.#pendingBytes += rest.length;
    }
  }

  /**
   * The next complete message, or null when none is buffered.
   * @throws the parse error of a line that is not a JSON-RPC message (that line is dropped).
   */
  readMessage(): JSONRPCMessage | null {
    const line = this.#lines.shift();
    if (line === undefined) return null;
    return deserializeMessage(line.toString("utf8").replace(/\r$/, ""));
  }

  /** Forgets everything buffered (the connection ended). */
  clear(): void {
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#lines = [];
    this.#overflowed = false;
  }

  #check(more: number): void {
    if (this.#pendingBytes + more <= this.#maxBytes) return;
    this.clear();
    this.#overflowed = true;
    throw new McpMessageTooLargeError(this.#maxBytes);
  }
}
