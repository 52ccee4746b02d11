/** The `Grep` tool: lines of the workspace's text files that match a regular expression. */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { defineTool, toolError, toolOk } from "@kosong/core";
import { z } from "zod";
import { capLine, capOutput } from "./cap-output.js";
import { findFiles, unsafePattern } from "./find-files.js";
import { fileToolFailure } from "./tool-failure.js";
import { resolveInside, type Workspace } from "./workspace.js";

/** Files larger than this are skipped. */
export const maxGrepFileBytes = 2 * 1024 * 1024;

const parameters = z.object({
  pattern: z.string().min(1).describe("A JavaScript regular expression, e.g. `function \\w+Tool`."),
  path: z.string().min(1).default(".").describe("The file or folder to search (default: the working directory)."),
  glob: z.string().min(1).default("**/*").describe("Only files matching this glob (relative to `path`), e.g. `**/*.ts`."),
  ignore_case: z.boolean().default(false).describe("Match case-insensitively."),
  max_matches: z.int().min(1).max(1_000).default(200).describe("Stop after this many matching lines."),
});

/** Builds `Grep` for `workspace`. */
export function grepTool(workspace: Workspace) {
  return defineTool({
    name: "Grep",
    description: "Search the text files of the working directory for a regular expression; prints `path:line: text` for each matching line.",
    parameters,
    async execute({ pattern, path: requested, glob, ignore_case, max_matches }) {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, ignore_case ? "i" : "");
      } catch (error) {
        return toolError({ message: `Invalid regular expression: ${(error as Error).message}`, brief: "Invalid pattern" });
      }
      if (unsafePattern(glob)) return toolError({ message: `Glob \`${glob}\` leaves the search folder; use a relative pattern without \`..\`.`, brief: "Path outside the working directory" });
      let files: string[];
      try {
        const target = await resolveInside(workspace, requested);
        const info = await stat(target);
        files = info.isDirectory() ? await findFiles(workspace, target, glob) : [path.relative(workspace.root, target)];
      } catch (error) {
        return fileToolFailure(error, requested);
      }
      const matches: string[] = [];
      for (const file of files) {
        if (matches.length >= max_matches) break;
        const text = await readText(path.join(workspace.root, file));
        if (text === null) continue;
        const lines = text.split("\n");
        for (let i = 0; i < lines.length && matches.length < max_matches; i++) {
          if (regex.test(lines[i]!)) matches.push(`${file}:${i + 1}: ${capLine(lines[i]!, 300)}`);
        }
      }
      const more = matches.length >= max_matches ? `\n[stopped at ${max_matches} matches]` : "";
      return toolOk({ output: capOutput(matches.join("\n") + more || "(no match)"), brief: `${matches.length} match${matches.length === 1 ? "" : "es"}` });
    },
  });
}

async function readText(file: string): Promise<string | null> {
  try {
    if ((await stat(file)).size > maxGrepFileBytes) return null;
    const text = await readFile(file, "utf8");
    return text.includes("\u0000") ? null : text;
  } catch {
    return null;
  }
}
