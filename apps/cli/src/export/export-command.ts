/** `kosong export` and `kosong import`: the commands around `export-session.ts` and `import-session.ts`. */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { ExitCode } from "../cli-error.js";
import { count } from "../render/count.js";
import { resolveSettings } from "../config/settings.js";
import type { MainOptions } from "../program.js";
import { exactSessionById, type ExportFormat, exportFormats, exportSession, writeExport } from "./export-session.js";
import { importSession } from "./import-session.js";

/** Runs `kosong export <id> [--format F] [-o FILE]`; the export goes to stdout without `-o`. */
export async function runExport(id: string, options: MainOptions & { format?: ExportFormat; output?: string }, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const settings = await resolveSettings({ ...options, thinking: undefined });
  const session = await exactSessionById(settings.home, id);
  const byExtension = exportFormats.find((f) => options.output?.toLowerCase().endsWith(`.${f}`) || (f === "md" && options.output?.toLowerCase().endsWith(".markdown")));
  const format = options.format ?? byExtension ?? "md";
  const exported = await exportSession(session, format, { store: settings.store, env: process.env, apiKey: settings.apiKey });
  if (options.output === undefined) {
    out.write(exported.text);
    if (format === "jsonl" && exported.children.length > 0) process.stderr.write(`kosong: the conversations of the session's ${count(exported.children.length, "agent")} are not in a JSONL export to stdout: export to a file (-o FILE) to keep them beside it (FILE.agents).\n`);
  } else {
    const beside = await writeExport(options.output, exported, format);
    process.stderr.write(`Exported session ${session.id} to ${options.output}${beside === null ? "" : `, ${beside}`}.\n`);
  }
  return ExitCode.ok;
}

/** Runs `kosong import <file>`: a new session of the working directory; says its id. */
export async function runImport(file: string, options: MainOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const settings = await resolveSettings({ ...options, thinking: undefined });
  const cwd = await realpath(options.workDir ? path.resolve(options.workDir) : process.cwd());
  const result = await importSession(settings.home, cwd, file, settings.store);
  const skipped = result.skipped > 0 ? ` (${result.skipped} damaged line(s) skipped)` : "";
  const agents = result.agents > 0 ? ` with ${count(result.agents, "agent")}` : "";
  const skippedAgents = result.skippedAgents > 0 ? ` (${count(result.skippedAgents, "agent")} not valid, skipped)` : "";
  out.write(`Imported ${result.messages} messages${agents}${skippedAgents} as session ${result.session.id}${skipped}. Resume it with: kosong --resume ${result.session.id}\n`);
  return ExitCode.ok;
}
