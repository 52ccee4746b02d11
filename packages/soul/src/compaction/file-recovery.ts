/**
 * Putting recently touched files back into a compacted conversation (Kode's
 * file recovery): up to a number of files, each with line numbers and cut at
 * a line boundary, skipping files the kept messages already show. The file
 * reader is injected, so the strategy itself does no I/O.
 */
import type { Message } from "@kosong/core";
import type { TokenCounter, Tokenizer } from "../tokens/index.js";
import type { TouchedFile } from "./file-registry.js";
import { truncateText } from "./truncate-text.js";

/** Reads a text file for recovery; rejects when it cannot (the file is then skipped). */
export type FileReader = (path: string, signal?: AbortSignal) => Promise<string>;

/** Limits of {@link recoverFiles}. */
export interface FileRecoveryOptions {
  read: FileReader;
  /** At most this many files (Kode: 5). */
  maxFiles: number;
  /** At most this many tokens of each file (Kode: 10,000). */
  maxTokensPerFile: number;
  /** At most this many tokens for all recovered messages together. */
  maxTokens: number;
  tokenizer: Tokenizer;
  counter: TokenCounter;
  signal?: AbortSignal;
}

/** The recovered files, one user message each, and their paths. */
export interface RecoveredFiles {
  messages: Message[];
  paths: string[];
  /** Files skipped, with why. */
  skipped: string[];
}

/** `text` with right-aligned 1-based line numbers and a tab before each line (as `cat -n`). */
export function withLineNumbers(text: string): string {
  const lines = text.split("\n");
  const width = String(lines.length).length;
  return lines.map((line, index) => `${String(index + 1).padStart(width)}\t${line}`).join("\n");
}

/**
 * Reads the most recently touched `files` (most recent first) that the
 * `kept` messages do not mention in a tool call, within the limits.
 */
export async function recoverFiles(files: readonly TouchedFile[], kept: readonly Message[], options: FileRecoveryOptions): Promise<RecoveredFiles> {
  const shown = kept.flatMap((m) => (m.tool_calls ?? []).map((call) => call.function.arguments ?? "")).join("\n");
  const result: RecoveredFiles = { messages: [], paths: [], skipped: [] };
  let left = options.maxTokens;
  for (const file of files) {
    if (result.paths.length >= options.maxFiles) break;
    if (shown.includes(JSON.stringify(file.path).slice(1, -1))) {
      result.skipped.push(`${file.path}: already in the kept messages`);
      continue;
    }
    let content: string;
    try {
      content = await options.read(file.path, options.signal);
    } catch (error) {
      options.signal?.throwIfAborted();
      result.skipped.push(`${file.path}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    if (content.includes("\0")) {
      result.skipped.push(`${file.path}: binary`);
      continue;
    }
    const header = `**Recovered file: ${file.path}** (last ${file.kind === "write" ? "written" : "read"})\n\n\`\`\`\n`;
    const numbered = withLineNumbers(content);
    const room = Math.min(options.maxTokensPerFile, left - options.counter.message(recoveredMessage(header, "", false)));
    if (room <= 0) break;
    const body = truncateText(numbered, room, options.tokenizer);
    const message = recoveredMessage(header, body, body !== numbered);
    left -= options.counter.message(message);
    result.messages.push(message);
    result.paths.push(file.path);
  }
  return result;
}

function recoveredMessage(header: string, body: string, truncated: boolean): Message {
  const footer = `\n\`\`\`\n<system>Recovered automatically after a compaction${truncated ? " (truncated)" : ""}.</system>`;
  return { role: "user", content: [{ type: "text", text: `${header}${body}${footer}` }] };
}
