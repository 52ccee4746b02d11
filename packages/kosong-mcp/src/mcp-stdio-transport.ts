/**
 * The SDK's stdio client transport with kosong's read buffer (internal):
 * the SDK spawns and stops the server; messages are cut by
 * {@link JsonLineBuffer}, linear in their size and capped while reading.
 */
import { StdioClientTransport, type StdioServerParameters } from "@modelcontextprotocol/sdk/client/stdio.js";
import { JsonLineBuffer } from "./json-line-buffer.js";

/** What the SDK's transport reads through (its `_readBuffer`). */
interface ReadBuffer {
  append(chunk: Buffer): void;
  readMessage(): unknown;
  clear(): void;
}

const isReadBuffer = (value: unknown): value is ReadBuffer =>
  typeof value === "object" && value !== null && ["append", "readMessage", "clear"].every((name) => typeof (value as Record<string, unknown>)[name] === "function");

/** A stdio transport whose messages may be at most `maxMessageBytes` long. */
export class McpStdioTransport extends StdioClientTransport {
  constructor(server: StdioServerParameters, maxMessageBytes: number) {
    super({ ...server, maxBufferSize: maxMessageBytes });
    // The SDK keeps its buffer in `_readBuffer`; should a later SDK not, its own (capped, slower) buffer stays.
    if (isReadBuffer(Reflect.get(this, "_readBuffer"))) Reflect.set(this, "_readBuffer", new JsonLineBuffer(maxMessageBytes));
  }
}
