/**
 * `kosong export <session>` and `/export`: a saved session's conversation as
 * Markdown, a self-contained HTML page, or kimi-cli's JSONL. Secrets of the
 * environment (and the configured API key) are replaced before anything is
 * written; Markdown and HTML carry the conversation inside (see
 * `embedded-conversation.ts`) so that `kosong import` restores any of them.
 * The session's children (subagents) travel with it: Markdown and HTML show
 * each child's steps under its Agent call and embed its conversation; a
 * JSONL export (kimi-cli's format, which has no place for them) keeps them
 * in a folder beside the file, `<file>.agents/<agent id>/` (`agent.json`,
 * `context.jsonl`), which `kosong import <file>` reads; a JSONL export to
 * stdout carries none (its caller says so).
 */
import { writeFile } from "node:fs/promises";
import { CliError } from "../cli-error.js";
import { environmentSecrets } from "../tools/child-environment.js";
import { listSessions, type SessionInfo, sessionIdPattern } from "../sessions/session-store.js";
import { count } from "../render/count.js";
import { type CarriedChild, childrenToJson, encodeRecords, writeChildrenFolder } from "../subagents/session-children.js";
import { readConversation } from "./conversation-records.js";
import { embedChildren, embedConversation } from "./embedded-conversation.js";
import { redactRecords, redactValue } from "./redact-records.js";
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

/** An export: its text, and the children it carries. */
export interface SessionExport {
  text: string;
  /** The session's children (secrets replaced): inside `text` for Markdown and HTML; a JSONL export's caller writes them beside it ({@link writeExport}). */
  children: CarriedChild[];
}

/** The export of `session` in `format`, secrets of `env` (and `apiKey`) replaced, in it and in its children. */
export async function exportSession(session: SessionInfo, format: ExportFormat, options: { store: string | null; env: NodeJS.ProcessEnv; apiKey: string | null }): Promise<SessionExport> {
  const secrets = environmentSecrets(options.env, [options.apiKey]);
  const content = await readConversation(session, options.store);
  const records = redactRecords(content.records, secrets);
  const children = content.children.map(({ record, records: childRecords }) => ({ record: redactValue(record, secrets), records: redactRecords(childRecords, secrets) }));
  const jsonl = encodeRecords(records);
  if (format === "jsonl") return { text: jsonl, children };
  const title = `kosong session ${session.id}`;
  const items = transcriptItems(records, children);
  const embedded = `${embedConversation(jsonl)}${children.length > 0 ? embedChildren(childrenToJson(children)) : ""}`;
  return { text: format === "md" ? `${renderMarkdown(title, items)}\n${embedded}` : `${renderHtml(title, items)}${embedded}`, children };
}

/** The folder a JSONL export `file` keeps the session's children in: `<file>.agents` (as beside a `--resume-file` file). */
export function childrenFolderOf(file: string): string {
  return `${file}.agents`;
}

/**
 * Writes `exported` to a new file `file` (an existing file is not
 * overwritten); a JSONL export's children go into the new folder
 * {@link childrenFolderOf} beside it. Returns a line saying what was
 * written beside, or null.
 */
export async function writeExport(file: string, exported: SessionExport, format: ExportFormat): Promise<string | null> {
  const beside = format === "jsonl" && exported.children.length > 0 ? childrenFolderOf(file) : null;
  try {
    if (beside !== null) await writeChildrenFolder(beside, exported.children);
    await writeFile(file, exported.text, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new CliError(`${(error as NodeJS.ErrnoException).path ?? file} exists: give another file name.`);
    throw error;
  }
  return beside === null ? null : `the conversations of ${count(exported.children.length, "agent")} in ${beside}`;
}
