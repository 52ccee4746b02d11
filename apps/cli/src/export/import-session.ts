/**
 * `kosong import <file>`: a new saved session of the working directory from
 * a kimi-cli `context.jsonl` or a kosong export (JSONL, Markdown or HTML).
 * Damaged lines are skipped and counted; a file with no conversation is an
 * error and makes no session. The session's children come back with it
 * (embedded in Markdown and HTML, from `<file>.agents` beside a JSONL file).
 */
import { readFile } from "node:fs/promises";
import { CliError } from "../cli-error.js";
import type { SessionInfo } from "../sessions/session-store.js";
import { createSessionFrom } from "./conversation-records.js";
import { childrenFromJson, decodeRecords, readChildrenFolder } from "../subagents/session-children.js";
import { extractChildren, extractConversation } from "./embedded-conversation.js";
import { childrenFolderOf } from "./export-session.js";

/** What an import made. */
export interface ImportResult {
  session: SessionInfo;
  messages: number;
  /** Lines that were not a valid record, skipped. */
  skipped: number;
  /** Children (subagents) the export carried, restored with it. */
  agents: number;
  /** Children the export carried that were not valid (skipped). */
  skippedAgents: number;
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
  let embeddedChildren: string | null;
  try {
    jsonl = extractConversation(text) ?? text;
    embeddedChildren = extractChildren(text);
  } catch (error) {
    throw new CliError(`import: ${file}: ${(error as Error).message}`);
  }
  // Markdown and HTML exports embed the children; a JSONL export keeps them in the folder beside it.
  const carried = embeddedChildren !== null ? childrenFromJson(embeddedChildren) : await readChildrenFolder(childrenFolderOf(file));
  const { records, skipped } = decodeRecords(jsonl);
  const messages = records.filter((r) => r.kind === "message").length;
  if (messages === 0) throw new CliError(`import: ${file} holds no conversation (a kimi-cli context.jsonl or a kosong export)${skipped > 0 ? `; ${skipped} line(s) were not records` : ""}.`);
  const session = await createSessionFrom(home, cwd, { records, children: carried.children }, store);
  return { session, messages, skipped, agents: carried.children.length, skippedAgents: carried.skipped };
}
