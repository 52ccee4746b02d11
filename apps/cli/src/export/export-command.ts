/** `kosong export` and `kosong import`: the commands around `export-session.ts` and `import-session.ts`. */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { ExitCode } from "../cli-error.js";
import { resolveSettings } from "../config/settings.js";
import type { MainOptions } from "../program.js";
import { exactSessionById, type ExportFormat, exportFormats, exportSession, writeExport } from "./export-session.js";
import { importSession } from "./import-session.js";

/** Runs `kosong export <id> [--format F] [-o FILE]`; the export goes to stdout without `-o`. */
export async function runExport(id: string, options: MainOptions & { format?: ExportFormat; output?: string }, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const settings = await resolveSettings({ ...options, thinking: undefined });
  const session = await exactSessionById(settings.home, id);
  const byExtension = exportFormats.find((f) => options.output?.toLowerCase().endsWith(`.${f}`) || (f === "md" && options.output?.toLowerCase().endsWith(".markdown")));
  const text = await exportSession(session, options.format ?? byExtension ?? "md", { store: settings.store, env: process.env, apiKey: settings.apiKey });
  if (options.output === undefined) out.write(text);
  else {
    await writeExport(options.output, text);
    process.stderr.write(`Exported session ${session.id} to ${options.output}.\n`);
  }
  return ExitCode.ok;
}

/** Runs `kosong import <file>`: a new session of the working directory; says its id. */
export async function runImport(file: string, options: MainOptions, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const settings = await resolveSettings({ ...options, thinking: undefined });
  const cwd = await realpath(options.workDir ? path.resolve(options.workDir) : process.cwd());
  const result = await importSession(settings.home, cwd, file, settings.store);
  const skipped = result.skipped > 0 ? ` (${result.skipped} damaged line(s) skipped)` : "";
  out.write(`Imported ${result.messages} messages as session ${result.session.id}${skipped}. Resume it with: kosong --resume ${result.session.id}\n`);
  return ExitCode.ok;
}
