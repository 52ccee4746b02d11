/**
 * The record of what a wire server sent, for `replay`: kimi-cli's
 * `wire.jsonl` format. The first line is `{"type": "metadata",
 * "protocol_version": ...}`; each later line is `{"timestamp": seconds,
 * "message": {"type", "payload"}}`. Append-only; a damaged line is skipped
 * when read, never fatal. A file that ends in a torn line (a crash, another
 * program) gets a newline before the first record this log appends, so
 * that record is not glued to the torn bytes (checked once, when the file
 * is opened for appending).
 */
import { closeSync, createReadStream, createWriteStream, openSync, readSync, statSync, type WriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { WireMessage } from "./wire-message.js";

/** An open wire log, appended to as messages are sent. */
export class WireLog {
  readonly path: string;
  #stream: WriteStream | null = null;

  constructor(path: string) {
    this.path = path;
  }

  /** Appends `message` (the file is created, private to the user, with its metadata line on first use). */
  append(message: WireMessage, protocolVersion: string): void {
    if (this.#stream === null) {
      const size = statSync(this.path, { throwIfNoEntry: false })?.size ?? 0;
      this.#stream = createWriteStream(this.path, { flags: "a", mode: 0o600 });
      this.#stream.on("error", () => undefined);
      if (size === 0) this.#stream.write(`${JSON.stringify({ type: "metadata", protocol_version: protocolVersion })}\n`);
      else if (!endsWithNewline(this.path, size)) this.#stream.write("\n");
    }
    this.#stream.write(`${JSON.stringify({ timestamp: Date.now() / 1000, message })}\n`);
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    const stream = this.#stream;
    this.#stream = null;
    if (stream !== null) await new Promise<void>((resolve) => stream.end(resolve));
  }

  /** The recorded messages, oldest first; nothing when the file does not exist. */
  async *messages(): AsyncGenerator<WireMessage> {
    const exists = await stat(this.path).then((s) => s.isFile(), () => false);
    if (!exists) return;
    const lines = createInterface({ input: createReadStream(this.path, { encoding: "utf8" }), crlfDelay: Infinity });
    for await (const line of lines) {
      const message = parseRecord(line);
      if (message !== null) yield message;
    }
  }
}

/** True when the byte at `size - 1` of `file` is a newline (or it cannot be read: nothing is added then). */
function endsWithNewline(file: string, size: number): boolean {
  let fd: number | null = null;
  try {
    fd = openSync(file, "r");
    const last = Buffer.alloc(1);
    return readSync(fd, last, 0, 1, size - 1) === 1 ? last[0] === 10 : true;
  } catch {
    return true;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function parseRecord(line: string): WireMessage | null {
  try {
    const record: unknown = JSON.parse(line);
    const message = (record as { message?: unknown } | null)?.message as { type?: unknown; payload?: unknown } | undefined;
    if (typeof message?.type !== "string" || typeof message.payload !== "object" || message.payload === null || Array.isArray(message.payload)) return null;
    return { type: message.type, payload: message.payload as Record<string, unknown> };
  } catch {
    return null;
  }
}
