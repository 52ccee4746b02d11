/**
 * The `Grep` tool: lines of the workspace's text files that match a regular
 * expression. Patterns run on RE2 (the `re2js` engine), whose matching time
 * is linear in the text, so no pattern can freeze the CLI (loaded on the
 * first search, not at start-up); files are read through the confined
 * primitives and an abort stops the search between files.
 */
import { toolError, toolOk, type ToolReturnValue } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import * as z from "zod";
import { capLine, capOutput } from "./cap-output.js";
import { FolderCursor, lstatInside, openForRead, readWhole, resolveInside } from "./confined-fs.js";
import { findFiles, unsafePattern } from "./find-files.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, type Workspace } from "./workspace.js";

/** Files larger than this are skipped. */
export const maxGrepFileBytes = 2 * 1024 * 1024;

/** The parameters of `Grep` (listed in `tools/built-in-tool-parameters.ts`). */
export const grepParameters = z.lazy(() => z.object({
  pattern: z.string().min(1).describe("A regular expression in RE2 syntax, e.g. `function \\w+Tool` (no lookaround or backreferences)."),
  path: z.string().min(1).default(".").describe("The file or folder to search (default: the working directory)."),
  glob: z.string().min(1).default("**/*").describe("Only files matching this glob (relative to `path`), e.g. `**/*.ts`."),
  ignore_case: z.boolean().default(false).describe("Match case-insensitively."),
  max_matches: z.int().min(1).max(1_000).default(200).describe("Stop after this many matching lines."),
}));

/** Builds `Grep` for `workspace`. */
export function grepTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "Grep",
    description: "Search the text files of the working directory for a regular expression (RE2 syntax); prints `path:line: text` for each matching line.",
    parameters: grepParameters,
    async execute({ pattern, path: requested, glob, ignore_case, max_matches }, context) {
      const compiled = await compile(pattern, ignore_case);
      if (!compiled.ok) return compiled.error;
      const { regex } = compiled;
      if (unsafePattern(glob)) return toolError({ message: `Glob \`${glob}\` leaves the search folder; use a relative pattern without \`..\`.`, brief: "Path outside the working directory" });
      const folders = new FolderCursor();
      const matches: string[] = [];
      try {
        let files: string[];
        try {
          const target = await resolveInside(workspace, requested);
          const { stats } = await lstatInside(workspace, target, folders);
          files = stats.isDirectory() ? await findFiles(workspace, target, glob, folders) : [relativeToRoot(workspace, target)];
        } catch (error) {
          return fileToolFailure(error, requested);
        }
        for (const file of files) {
          if (matches.length >= max_matches) break;
          if (context.signal.aborted) return toolError({ message: "The search was aborted.", brief: "Aborted" });
          const text = await readText(workspace, file, folders, context.signal);
          if (text === null) continue;
          const lines = text.split("\n");
          for (let i = 0; i < lines.length && matches.length < max_matches; i++) {
            if (regex.test(lines[i]!)) matches.push(`${file}:${i + 1}: ${capLine(lines[i]!, 300)}`);
          }
        }
      } finally {
        await folders.close();
      }
      const more = matches.length >= max_matches ? `\n[stopped at ${max_matches} matches]` : "";
      return toolOk({ output: capOutput(matches.join("\n") + more || "(no match)"), brief: `${matches.length} match${matches.length === 1 ? "" : "es"}` });
    },
  });
}

/** A compiled pattern, or the error result for the model. */
type Compiled = { ok: true; regex: { test(line: string): boolean } } | { ok: false; error: ToolReturnValue };

async function compile(pattern: string, ignoreCase: boolean): Promise<Compiled> {
  const { RE2JS } = await import("re2js");
  try {
    return { ok: true, regex: RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) };
  } catch (error) {
    const result = toolError({
      message: `Invalid or unsupported regular expression: ${(error as Error).message}. Grep uses RE2 syntax, which has no lookahead, lookbehind or backreferences.`,
      brief: "Invalid pattern",
    });
    return { ok: false, error: result };
  }
}

/** The text of `file`, or null when it is too big, binary, or refused (not a regular file, hard-linked, outside). */
async function readText(workspace: Workspace, file: string, folders: FolderCursor, signal: AbortSignal): Promise<string | null> {
  let opened;
  try {
    opened = await openForRead(workspace, file, folders);
  } catch {
    return null;
  }
  try {
    if (opened.stats.size > maxGrepFileBytes) return null;
    const text = await readWhole(opened, signal);
    return text.includes("\u0000") ? null : text;
  } catch {
    return null;
  } finally {
    await opened.handle.close();
  }
}
