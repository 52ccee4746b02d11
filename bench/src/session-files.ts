/**
 * Saved sessions written straight to disk as the CLI leaves them, for the
 * benchmarks that open one: `session.json`, the conversation
 * (`context.jsonl`, kimi-cli's format, with workload W's messages), one
 * rotation `context_N.jsonl` per compaction (the conversation each
 * compaction replaced, as `clear()` keeps it) with its note in
 * `context.jsonl.branches`, and the file journal's `files/journal.jsonl`
 * (a checkpoint mark per checkpoint, a restore record per compaction, a
 * file change now and then).
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { checkpointRecord, encodeRecord, messageRecord, systemPromptRecord, usageRecord } from "@kosong/context/records";
import { workMessage } from "./workload-w.ts";

/** The shape of a generated session. */
export interface SessionShape {
  /** Messages of each compacted part, oldest first (one rotation each). */
  compactedParts: readonly number[];
  /** Messages after the last compaction (the current `context.jsonl`). */
  currentMessages: number;
  /** The `_usage` token count written after each tool result (keep it under the window: no compaction at open). */
  tokenCount: number;
}

/** What was written. */
export interface WrittenSession {
  dir: string;
  /** Bytes of every file of the session. */
  bytes: number;
  /** Messages in all its parts. */
  messages: number;
}

/** Buffered appends to one new file. */
class FileWriter {
  readonly #fd: number;
  #lines: string[] = [];
  #pending = 0;
  bytes = 0;
  constructor(file: string) {
    this.#fd = openSync(file, "w", 0o600);
  }
  line(text: string): void {
    this.#lines.push(text, "\n");
    this.#pending += text.length;
    if (this.#pending > 1 << 20) this.flush();
  }
  flush(): void {
    const buffer = Buffer.from(this.#lines.join(""));
    writeSync(this.#fd, buffer);
    this.bytes += buffer.length;
    this.#lines = [];
    this.#pending = 0;
  }
  close(): number {
    this.flush();
    closeSync(this.#fd);
    return this.bytes;
  }
}

/** Writes session `id` for `cwd` under `home` (KOSONG_HOME) with the given shape. */
export function writeSession(home: string, id: string, cwd: string, shape: SessionShape): WrittenSession {
  const dir = path.join(home, "sessions", id);
  mkdirSync(path.join(dir, "files"), { recursive: true, mode: 0o700 });
  const firstPrompt = workMessage(0).content[0]!;
  const metadata = { id, cwd, first_prompt: "text" in firstPrompt ? firstPrompt.text.slice(0, 80) : null, created_at: new Date().toISOString(), compaction: null };
  writeFileSync(path.join(dir, "session.json"), `${JSON.stringify(metadata, null, 2)}\n`, { mode: 0o600 });
  const journal = new FileWriter(path.join(dir, "files", "journal.jsonl"));
  let seq = 0;
  const mark = (record: object) => {
    journal.line(JSON.stringify(record));
    return seq++;
  };
  let branch = 0;
  let nextId = 0;
  let bytes = 0;
  let messages = 0;
  const notes: string[] = [];
  const parts = [...shape.compactedParts, shape.currentMessages];
  for (const [index, count] of parts.entries()) {
    const current = index === parts.length - 1;
    const file = path.join(dir, current ? "context.jsonl" : `context_${index + 1}.jsonl`);
    const out = new FileWriter(file);
    out.line(encodeRecord(systemPromptRecord("You are kosong, a coding agent.")));
    if (index > 0) {
      // The compaction's result: a checkpoint, then the summary of the part before.
      mark({ t: "cp", id: nextId, b: branch });
      out.line(encodeRecord(checkpointRecord(nextId++)));
      out.line(encodeRecord(messageRecord({ role: "user", content: [{ type: "text", text: `Summary of the conversation so far (part ${index}).` }] })));
      messages += 1;
    }
    for (let i = 0; i < count; i += 1) {
      if (i % 3 === 0) {
        mark({ t: "cp", id: nextId, b: branch });
        out.line(encodeRecord(checkpointRecord(nextId++)));
        if (i % 30 === 0) {
          mark({ t: "pri", path: `src/file-${i % 300}.ts`, s: { k: "missing" } });
          mark({ t: "aft", path: `src/file-${i % 300}.ts`, st: { kind: "file", size: 100, mtimeMs: 1, mode: 0o644 } });
        }
      }
      out.line(encodeRecord(messageRecord(workMessage(i))));
      if (i % 3 === 2) out.line(encodeRecord(usageRecord(shape.tokenCount)));
    }
    messages += count;
    const size = out.close();
    bytes += size;
    if (!current) {
      // The compaction that replaced this part: a clear in the journal, its rotation noted.
      const rev = mark({ t: "rev", kind: "clear", from: branch, b: seq, parent: null, fork: null, before: "0".repeat(64), files: [] });
      mark({ t: "end", r: rev, rotation: index + 1 });
      branch = rev;
      notes.push(JSON.stringify({ n: index + 1, size, note: { kind: "compaction", checkpoint: null, sharedMessages: 0, messages: count, firstPrompt: `Request ${index}` } }));
    }
  }
  bytes += journal.close();
  if (notes.length > 0) {
    const text = `${notes.join("\n")}\n`;
    writeFileSync(path.join(dir, "context.jsonl.branches"), text, { mode: 0o600 });
    bytes += Buffer.byteLength(text);
  }
  return { dir, bytes, messages };
}
