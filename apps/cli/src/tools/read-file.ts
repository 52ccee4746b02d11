/** The `ReadFile` tool: a text file of the workspace, with line numbers, a window of lines at a time. */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import * as z from "zod";
import { count } from "../render/count.js";
import { capLine, capOutput } from "./cap-output.js";
import { readTextInside } from "./read-text-inside.js";
import { relativeToRoot, type Workspace } from "./workspace.js";

/** Lines returned by one call when `n_lines` is not given. */
export const defaultReadLines = 1_000;

/** The parameters of `ReadFile` (listed in `tools/built-in-tool-parameters.ts`). */
export const readFileParameters = z.lazy(() => z.object({
  path: z.string().min(1).describe("The file, relative to the working directory (or absolute inside it)."),
  line_offset: z.int().min(1).default(1).describe("The first line to read (1-based)."),
  n_lines: z.int().min(1).max(defaultReadLines).default(defaultReadLines).describe(`How many lines to read (at most ${defaultReadLines}).`),
}));

/** Builds `ReadFile` for `workspace`. */
export function readFileTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "ReadFile",
    description: `Read a text file of the working directory. Lines are numbered; long files come ${defaultReadLines} lines at a time (use line_offset to go on).`,
    parameters: readFileParameters,
    async execute({ path: requested, line_offset, n_lines }, context) {
      const read = await readTextInside(workspace, requested, context.signal);
      if (!read.ok) return read.failure;
      const { file, text } = read;
      if (text.includes("\u0000")) return toolError({ message: `\`${requested}\` looks like a binary file; only text files can be read.`, brief: "Binary file" });
      workspace.files.recordRead(file);
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      const first = line_offset - 1;
      const window = lines.slice(first, first + n_lines);
      const width = String(first + window.length).length;
      const numbered = window.map((line, i) => `${String(first + i + 1).padStart(width)}\t${capLine(line)}`).join("\n");
      const remaining = lines.length - first - window.length;
      const message = remaining > 0 ? `Lines ${line_offset}-${first + window.length} of ${lines.length}; ${remaining} more (read on with line_offset=${first + window.length + 1}).` : "";
      return toolOk({ output: capOutput(numbered), message, brief: `${relativeToRoot(workspace, file)} (${count(window.length, "line")})` });
    },
  });
}
