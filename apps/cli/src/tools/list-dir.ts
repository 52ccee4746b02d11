/** The `ListDir` tool: the entries of a folder of the workspace. */
import { toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import * as z from "zod";
import { capOutput } from "./cap-output.js";
import { listDirInside } from "./confined-fs.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, type Workspace } from "./workspace.js";

/** Entries listed at most. */
export const maxListedEntries = 500;

/** The parameters of `ListDir` (listed in `tools/built-in-tool-parameters.ts`). */
export const listDirParameters = z.lazy(() => z.object({
  path: z.string().min(1).default(".").describe("The folder, relative to the working directory (default: the working directory)."),
}));

/** Builds `ListDir` for `workspace`. */
export function listDirTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "ListDir",
    description: "List the files and folders of a folder of the working directory (folders end with /, files show their size).",
    parameters: listDirParameters,
    async execute({ path: requested }) {
      try {
        const { path: dir, entries } = await listDirInside(workspace, requested);
        const lines = entries.slice(0, maxListedEntries).map(({ name, stats }) => {
          if (stats.isDirectory()) return `${name}/`;
          if (stats.isSymbolicLink()) return `${name}@`;
          return `${name}  ${stats.size} bytes`;
        });
        if (entries.length > maxListedEntries) lines.push(`[${entries.length - maxListedEntries} more entries not shown]`);
        return toolOk({ output: capOutput(lines.join("\n") || "(empty folder)"), brief: `${relativeToRoot(workspace, dir)}: ${entries.length} entries` });
      } catch (error) {
        return fileToolFailure(error, requested);
      }
    },
  });
}
