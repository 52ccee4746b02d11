/** Reading a text file of the workspace for a tool: opened through the confined primitives, the failure as an error result. */
import type { ToolReturnValue } from "@kosong/core";
import { openForRead, readWhole } from "./confined-fs.js";
import { fileToolFailure } from "./tool-failure.js";
import type { Workspace } from "./workspace.js";

/** The file's real path and text, or the error result to return. */
export type TextRead = { ok: true; file: string; text: string } | { ok: false; failure: ToolReturnValue };

/** Reads `requested` (a path inside the workspace) as UTF-8; an abort of `signal` stops the read. */
export async function readTextInside(workspace: Workspace, requested: string, signal?: AbortSignal): Promise<TextRead> {
  try {
    const file = await openForRead(workspace, requested);
    try {
      return { ok: true, file: file.path, text: await readWhole(file, signal) };
    } finally {
      await file.handle.close();
    }
  } catch (error) {
    return { ok: false, failure: fileToolFailure(error, requested) };
  }
}
