/** The `ListDir` tool: the entries of a folder of the workspace. */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { defineTool, toolOk } from "@kosong/core";
import { z } from "zod";
import { capOutput } from "./cap-output.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, resolveInside, type Workspace } from "./workspace.js";

/** Entries listed at most. */
export const maxListedEntries = 500;

const parameters = z.object({
  path: z.string().min(1).default(".").describe("The folder, relative to the working directory (default: the working directory)."),
});

/** Builds `ListDir` for `workspace`. */
export function listDirTool(workspace: Workspace) {
  return defineTool({
    name: "ListDir",
    description: "List the files and folders of a folder of the working directory (folders end with /, files show their size).",
    parameters,
    async execute({ path: requested }) {
      try {
        const dir = await resolveInside(workspace, requested);
        const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
        const shown = entries.slice(0, maxListedEntries);
        const lines = await Promise.all(
          shown.map(async (entry) => {
            if (entry.isDirectory()) return `${entry.name}/`;
            if (entry.isSymbolicLink()) return `${entry.name}@`;
            const size = await stat(path.join(dir, entry.name)).then((s) => s.size, () => 0);
            return `${entry.name}  ${size} bytes`;
          }),
        );
        if (entries.length > shown.length) lines.push(`[${entries.length - shown.length} more entries not shown]`);
        return toolOk({ output: capOutput(lines.join("\n") || "(empty folder)"), brief: `${relativeToRoot(workspace, dir)}: ${entries.length} entries` });
      } catch (error) {
        return fileToolFailure(error, requested);
      }
    },
  });
}
