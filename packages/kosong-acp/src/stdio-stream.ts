/** The ACP stream of a process's stdin and stdout (newline-delimited JSON-RPC). */
import { Readable, Writable } from "node:stream";
import { ndJsonStream, type Stream } from "@agentclientprotocol/sdk";

/** An ACP stream reading `input` and writing `output` (default: this process's stdin and stdout). */
export function stdioStream(input: Readable = process.stdin, output: Writable = process.stdout): Stream {
  return ndJsonStream(Writable.toWeb(output), Readable.toWeb(input) as ReadableStream<Uint8Array>);
}
