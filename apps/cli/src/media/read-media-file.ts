/** The `ReadMediaFile` tool: the model looks at an image of the workspace (PNG, JPEG, GIF, WebP). */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import * as z from "zod";
import { relativeToRoot, type Workspace } from "../tools/workspace.js";
import { readImageInside } from "./read-image-inside.js";

/** The parameters of `ReadMediaFile` (listed in `tools/built-in-tool-parameters.ts`). */
export const readMediaFileParameters = z.lazy(() => z.object({
  path: z.string().min(1).describe("The image file, relative to the working directory (or absolute inside it)."),
}));

/**
 * Builds `ReadMediaFile` for `workspace`. With `imageInput` false (the model
 * takes no images) the tool answers with an error saying so, and no image
 * ever reaches the request.
 */
export function readMediaFileTool(workspace: Workspace, imageInput: () => { accepted: boolean; model: string }) {
  return defineBuiltInTool({
    name: "ReadMediaFile",
    description: "Look at an image file of the working directory (PNG, JPEG, GIF or WebP). Large images are scaled down. Use ReadFile for text files.",
    parameters: readMediaFileParameters,
    async execute({ path: requested }) {
      const input = imageInput();
      if (!input.accepted) return toolError({ message: `The model ${input.model} does not accept images (set image_input = true in the config if it does).`, brief: "Model takes no images" });
      const read = await readImageInside(workspace, requested);
      if (!read.ok) return read.failure;
      workspace.files.recordRead(read.file);
      const { image } = read;
      const size = `${image.width}x${image.height}${image.scaledFrom ? `, scaled down from ${image.scaledFrom}` : ""}`;
      return toolOk({ output: [{ type: "text", text: `Image ${relativeToRoot(workspace, read.file)} (${image.mediaType}, ${size}):` }, read.part], brief: `${relativeToRoot(workspace, read.file)} (${size})` });
    },
  });
}
