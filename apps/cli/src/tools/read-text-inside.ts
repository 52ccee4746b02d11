/** Reading a text file of the workspace for a tool: the path checked, the failure as an error result. */
import type { ToolReturnValue } from "@kosong/core";
import { fileToolFailure } from "./tool-failure.js";
import { readWorkspaceText, resolveInside, type Workspace } from "./workspace.js";

/** The file's real path and text, or the error result to return. */
export type TextRead = { ok: true; file: string; text: string } | { ok: false; failure: ToolReturnValue };

/** Reads `requested` (a path inside the workspace) as UTF-8. */
export async function readTextInside(workspace: Workspace, requested: string): Promise<TextRead> {
  try {
    const file = await resolveInside(workspace, requested);
    return { ok: true, file, text: await readWorkspaceText(workspace, file) };
  } catch (error) {
    return { ok: false, failure: fileToolFailure(error, requested) };
  }
}
