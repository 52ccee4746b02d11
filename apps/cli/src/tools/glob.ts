/** The `Glob` tool: files of the workspace whose paths match a glob pattern. */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import * as z from "zod";
import { count } from "../render/count.js";
import { capOutput } from "./cap-output.js";
import { findFiles, unsafePattern } from "./find-files.js";
import { fileToolFailure } from "./tool-failure.js";
import { resolveInside } from "./confined-fs.js";
import type { Workspace } from "./workspace.js";

/** Paths returned at most. */
export const maxGlobResults = 1_000;

/** The parameters of `Glob` (listed in `tools/built-in-tool-parameters.ts`). */
export const globParameters = z.lazy(() => z.object({
  pattern: z.string().min(1).describe("A glob pattern relative to `path`, e.g. `**/*.ts` or `src/*.{js,json}`."),
  path: z.string().min(1).default(".").describe("The folder to search from (default: the working directory)."),
}));

/** Builds `Glob` for `workspace`. */
export function globTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "Glob",
    description: "Find files of the working directory by glob pattern (node_modules and .git are skipped). Returns paths relative to the working directory, sorted.",
    parameters: globParameters,
    async execute({ pattern, path: requested }) {
      if (unsafePattern(pattern)) return toolError({ message: `Pattern \`${pattern}\` leaves the search folder; use a relative pattern without \`..\`.`, brief: "Path outside the working directory" });
      try {
        const dir = await resolveInside(workspace, requested);
        const files = await findFiles(workspace, dir, pattern);
        const shown = files.slice(0, maxGlobResults);
        if (files.length > shown.length) shown.push(`[${files.length - shown.length} more paths not shown]`);
        return toolOk({ output: capOutput(shown.join("\n") || "(no match)"), brief: count(files.length, "file") });
      } catch (error) {
        return fileToolFailure(error, requested);
      }
    },
  });
}
