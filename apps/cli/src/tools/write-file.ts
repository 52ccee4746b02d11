/** The `WriteFile` tool: creates or overwrites (or appends to) a file of the workspace, after approval. */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { defineTool, toolOk } from "@kosong/core";
import { z } from "zod";
import { count } from "../render/count.js";
import { askApproval } from "./ask-approval.js";
import { fileToolFailure } from "./tool-failure.js";
import { relativeToRoot, resolveInside, type Workspace, writeWorkspaceText } from "./workspace.js";

const parameters = z.object({
  path: z.string().min(1).describe("The file, relative to the working directory (or absolute inside it). Missing folders are created."),
  content: z.string().describe("The text to write."),
  mode: z.enum(["overwrite", "append"]).default("overwrite").describe("Overwrite the file (default) or append to it."),
});

/** Builds `WriteFile` for `workspace`. */
export function writeFileTool(workspace: Workspace) {
  return defineTool({
    name: "WriteFile",
    description: "Write a text file of the working directory (creating it and its folders, or overwriting it; mode=append adds to its end). Needs the user's approval.",
    parameters,
    async execute({ path: requested, content, mode }, context) {
      let file: string;
      try {
        file = await resolveInside(workspace, requested);
      } catch (error) {
        return fileToolFailure(error, requested);
      }
      const shown = relativeToRoot(workspace, file);
      const rejected = await askApproval(context, "WriteFile", `${mode === "append" ? "Append to" : "Write"} ${shown} (${count(content.length, "character")})`);
      if (rejected) return rejected;
      try {
        await mkdir(path.dirname(file), { recursive: true });
        await writeWorkspaceText(workspace, file, content, mode);
      } catch (error) {
        return fileToolFailure(error, requested);
      }
      workspace.files.recordWrite(file);
      const lines = count(content.split("\n").length, "line");
      return toolOk({ output: `${mode === "append" ? "Appended to" : "Wrote"} ${shown} (${lines}).`, brief: `${shown} (${lines})` });
    },
  });
}
