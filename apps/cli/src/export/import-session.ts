/**
 * `kosong import <file>`: a new saved session of the working directory from
 * a kimi-cli `context.jsonl` or a kosong export (JSONL, Markdown or HTML).
 * Damaged lines are skipped and counted; a file with no conversation is an
 * error and makes no session.
 */
import { readFile } from "node:fs/promises";
import { type ContextRecord, decodeRecordLine } from "@kosong/context/records";
import { CliError } from "../cli-error.js";
import type { SessionInfo } from "../sessions/session-store.js";
import { createSessionFrom } from "./conversation-records.js";
import { extractConversation } from "./embedded-conversation.js";

/** What an import made. */
export interface ImportResult {
  session: SessionInfo;
  messages: number;
  /** Lines that were not a valid record, skipped. */
  skipped: number;
}

/** Imports `file` as a new session of `cwd` under `home` (with `store`, its conversation in PostgreSQL). */
export async function importSession(home: string, cwd: string, file: string, store: string | null): Promise<ImportResult> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`import: cannot read ${file}: ${(error as Error).message}`);
  }
  let jsonl: string;
  try {
    jsonl = extractConversation(text) ?? text;
  } catch (error) {
    throw new CliError(`import: ${file}: ${(error as Error).message}`);
  }
  const records: ContextRecord[] = [];
  let skipped = 0;
  for (const line of jsonl.split("\n")) {
    if (!line.trim()) continue;
    const decoded = decodeRecordLine(line);
    if (decoded.ok) records.push(decoded.record);
    else skipped++;
  }
  const messages = records.filter((r) => r.kind === "message").length;
  if (messages === 0) throw new CliError(`import: ${file} holds no conversation (a kimi-cli context.jsonl or a kosong export)${skipped > 0 ? `; ${skipped} line(s) were not records` : ""}.`);
  return { session: await createSessionFrom(home, cwd, records, store), messages, skipped };
}
