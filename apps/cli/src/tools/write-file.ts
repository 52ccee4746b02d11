/** The `WriteFile` tool: creates or overwrites (or appends to) a file of the workspace, after approval. */
import { toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import { declareWrite } from "@kosong/workspace";
import * as z from "zod";
import { count } from "../render/count.js";
import { askApproval } from "./ask-approval.js";
import { resolveInside } from "./confined-fs.js";
import { lineDiff } from "./line-diff.js";
import { readTextInside } from "./read-text-inside.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, type Workspace } from "./workspace.js";
import { writeTextInside } from "./write-text-inside.js";

/** The parameters of `WriteFile` (listed in `tools/built-in-tool-parameters.ts`). */
export const writeFileParameters = z.lazy(() => z.object({
  path: z.string().min(1).describe("The file, relative to the working directory (or absolute inside it). Missing folders are created."),
  content: z.string().describe("The text to write."),
  mode: z.enum(["overwrite", "append"]).default("overwrite").describe("Overwrite the file (default) or append to it."),
}));

/** Builds `WriteFile` for `workspace`. */
export function writeFileTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "WriteFile",
    description: "Write a text file of the working directory (creating it and its folders, or overwriting it; mode=append adds to its end). Needs the user's approval.",
    parameters: writeFileParameters,
    async execute({ path: requested, content, mode }, context) {
      let resolved: string;
      try {
        resolved = await resolveInside(workspace, requested);
      } catch (error) {
        return fileToolFailure(error, requested);
      }
      const shown = relativeToRoot(workspace, resolved);
      const append = mode === "append";
      const rejected = await askApproval(context, "WriteFile", `${append ? "Append to" : "Write"} ${shown} (${count(content.length, "character")})${await changeShown(workspace, requested, content, append, context.signal)}`);
      if (rejected) return rejected;
      let written: string;
      // Its prior state is journaled first, so that a revert of the conversation restores it.
      const declared = await declareWrite(context, [resolved]);
      try {
        // Opened after the approval, through the confined walk: a path swapped for a link while the user decided is checked again.
        written = (await writeTextInside(workspace, requested, { content, append, signal: context.signal })).file;
      } catch (error) {
        return fileToolFailure(error, requested);
      } finally {
        await declared.done();
      }
      workspace.files.recordWrite(written);
      const lines = count(lineCount(content), "line");
      return toolOk({ output: `${append ? "Appended to" : "Wrote"} ${shown} (${lines}).`, brief: `${shown} (${lines})` });
    },
  });
}

/**
 * The write as a diff for the approval (after a newline): the appended
 * lines, or the file's text (read through the confined walk; none when it
 * does not exist or cannot be read) against the new content.
 */
async function changeShown(workspace: Workspace, requested: string, content: string, append: boolean, signal?: AbortSignal): Promise<string> {
  const read = append ? null : await readTextInside(workspace, requested, signal);
  const diff = lineDiff(read?.ok ? read.text : "", content);
  return diff ? `\n${diff}` : "\n(no change)";
}

/** The lines of `text` as ReadFile numbers them: a final newline ends the last line, it starts no new one ("" has none). */
function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
