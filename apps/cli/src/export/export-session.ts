/**
 * `kosong export <session>` and `/export`: a saved session's conversation as
 * Markdown, a self-contained HTML page, or kimi-cli's JSONL. Secrets of the
 * environment (and the configured API key) are replaced before anything is
 * written; Markdown and HTML carry the conversation inside (see
 * `embedded-conversation.ts`) so that `kosong import` restores any of them.
 */
import { writeFile } from "node:fs/promises";
import { CliError } from "../cli-error.js";
import { environmentSecrets } from "../tools/child-environment.js";
import { listSessions, type SessionInfo, sessionIdPattern } from "../sessions/session-store.js";
import { readConversation, recordsToJsonl } from "./conversation-records.js";
import { embedConversation } from "./embedded-conversation.js";
import { redactRecords } from "./redact-records.js";
import { renderHtml } from "./render-html.js";
import { renderMarkdown } from "./render-markdown.js";
import { transcriptItems } from "./transcript-items.js";

/** The formats of an export. */
export const exportFormats = ["md", "html", "jsonl"] as const;
/** One of {@link exportFormats}. */
export type ExportFormat = (typeof exportFormats)[number];

/** The saved session with exactly the id `id` (no prefix): a {@link CliError} for a malformed or unknown id. */
export async function exactSessionById(home: string, id: string): Promise<SessionInfo> {
  if (!id.isWellFormed() || !sessionIdPattern.test(id)) throw new CliError(`${JSON.stringify(id).slice(0, 140)} is not a valid session id (see \`kosong sessions\`).`);
  const found = (await listSessions(home)).find((s) => s.id === id);
  if (!found) throw new CliError(`No session "${id}" (see \`kosong sessions\`; give the whole id).`);
  return found;
}

/** The export of `session` in `format`, secrets of `env` (and `apiKey`) replaced. */
export async function exportSession(session: SessionInfo, format: ExportFormat, options: { store: string | null; env: NodeJS.ProcessEnv; apiKey: string | null }): Promise<string> {
  const records = redactRecords(await readConversation(session, options.store), environmentSecrets(options.env, [options.apiKey]));
  const jsonl = recordsToJsonl(records);
  if (format === "jsonl") return jsonl;
  const title = `kosong session ${session.id}`;
  const items = transcriptItems(records);
  return format === "md" ? `${renderMarkdown(title, items)}\n${embedConversation(jsonl)}` : `${renderHtml(title, items)}${embedConversation(jsonl)}`;
}

/** Writes `text` to a new file `file` (an existing file is not overwritten). */
export async function writeExport(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new CliError(`${file} exists: give another file name.`);
    throw error;
  }
}
