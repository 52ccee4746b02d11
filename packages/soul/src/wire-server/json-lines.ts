/**
 * Reads a byte stream as lines of UTF-8 text (the framing of kimi-cli's wire
 * protocol: one JSON-RPC message per line). A line longer than the limit is
 * not buffered: it is reported once as too long and skipped up to its end,
 * so a peer cannot make the reader hold unbounded memory.
 */

/** One line read, or the report of one that was too long. */
export type LineItem = { kind: "line"; text: string } | { kind: "too-long"; bytes: number };

/**
 * The lines of `input` (without their `\n`, a trailing `\r` removed), and
 * the last one when the stream ends without a newline. Blank lines are
 * skipped.
 */
export async function* readLines(input: AsyncIterable<Uint8Array | string>, maxLineBytes: number): AsyncGenerator<LineItem> {
  const decoder = new TextDecoder("utf-8");
  let chunks: Buffer[] = [];
  let size = 0;
  let dropping = false;
  const finish = function* (tail: Buffer): Generator<LineItem> {
    if (size + tail.length > maxLineBytes) dropping = true;
    if (dropping) {
      yield { kind: "too-long", bytes: size + tail.length };
    } else {
      const text = decoder.decode(Buffer.concat([...chunks, tail])).replace(/\r$/, "");
      if (text.trim() !== "") yield { kind: "line", text };
    }
    chunks = [];
    size = 0;
    dropping = false;
  };
  for await (const raw of input) {
    let chunk = typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10)) {
      yield* finish(chunk.subarray(0, newline));
      chunk = chunk.subarray(newline + 1);
    }
    if (chunk.length === 0) continue;
    if (!dropping && size + chunk.length > maxLineBytes) dropping = true;
    if (dropping) chunks = [];
    else chunks.push(Buffer.from(chunk));
    size += chunk.length;
  }
  if (size > 0 || chunks.length > 0) yield* finish(Buffer.alloc(0));
}
