/** The `EditFile` tool: an exact string replacement in a file of the workspace, after approval. */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import { declareWrite } from "@kosong/workspace";
import * as z from "zod";
import { count } from "../render/count.js";
import { askApproval } from "./ask-approval.js";
import { lineDiff } from "./line-diff.js";
import { readTextInside } from "./read-text-inside.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, type Workspace } from "./workspace.js";
import { writeTextInside } from "./write-text-inside.js";

/** The parameters of `EditFile` (listed in `tools/built-in-tool-parameters.ts`). */
export const editFileParameters = z.lazy(() => z.object({
  path: z.string().min(1).describe("The file, relative to the working directory (or absolute inside it)."),
  old_string: z.string().min(1).describe("The exact text to replace (whitespace included). Must occur once unless replace_all."),
  new_string: z.string().describe("The text to put in its place."),
  replace_all: z.boolean().default(false).describe("Replace every occurrence instead of exactly one."),
}));

/** Builds `EditFile` for `workspace`. */
export function editFileTool(workspace: Workspace) {
  return defineBuiltInTool({
    name: "EditFile",
    description: "Edit a file of the working directory by replacing an exact string (old_string must match once, or set replace_all). Needs the user's approval.",
    parameters: editFileParameters,
    async execute({ path: requested, old_string, new_string, replace_all }, context) {
      const read = await readTextInside(workspace, requested, context.signal);
      if (!read.ok) return read.failure;
      const { file, text } = read;
      workspace.files.recordRead(file);
      const occurrences = text.split(old_string).length - 1;
      if (occurrences === 0) return toolError({ message: `old_string was not found in \`${requested}\`; read the file and copy the text exactly.`, brief: "Text not found" });
      if (occurrences > 1 && !replace_all) {
        return toolError({ message: `old_string occurs ${occurrences} times in \`${requested}\`; give more surrounding text to make it unique, or set replace_all.`, brief: "Text not unique" });
      }
      const shown = relativeToRoot(workspace, file);
      const edited = replace_all ? text.split(old_string).join(new_string) : text.replace(old_string, () => new_string);
      const rejected = await askApproval(context, "EditFile", `Edit ${shown}: replace ${count(occurrences, "occurrence")}\n${lineDiff(text, edited)}`);
      if (rejected) return rejected;
      let written: string;
      // Its prior state is journaled first, so that a revert of the conversation restores it.
      const declared = await declareWrite(context, [file]);
      try {
        // Opened again after the approval, through the confined walk; written only if it still holds what was edited.
        const result = await writeTextInside(workspace, requested, { content: edited, create: false, expected: text, signal: context.signal });
        if (result.changed) {
          return toolError({ message: `\`${requested}\` changed while the edit waited for approval; read it again and redo the edit.`, brief: "File changed meanwhile" });
        }
        written = result.file;
      } catch (error) {
        return fileToolFailure(error, requested);
      } finally {
        await declared.done();
      }
      workspace.files.recordWrite(written);
      const replaced = count(occurrences, "replacement");
      return toolOk({ output: `Edited ${shown}: ${replaced}.`, brief: `${shown} (${replaced})` });
    },
  });
}
