/**
 * Reading a text file of the workspace for a tool: opened through the
 * confined primitives, the failure as an error result. With a host that
 * reads files (an editor over ACP), the file is still opened and checked
 * here first and the host reads it by its real path (its buffer, saved or
 * not).
 */
import type { ToolReturnValue } from "@kosong/core";
import { openForRead, readWhole } from "./confined-fs.js";
import { HostFileError } from "./host-file-error.js";
import { fileToolFailure } from "./tool-failure.js";
import type { Workspace } from "./workspace.js";

/** The file's real path and text, or the error result to return. */
export type TextRead = { ok: true; file: string; text: string } | { ok: false; failure: ToolReturnValue };

/** Reads `requested` (a path inside the workspace) as UTF-8; an abort of `signal` stops the read. */
export async function readTextInside(workspace: Workspace, requested: string, signal?: AbortSignal): Promise<TextRead> {
  try {
    const file = await openForRead(workspace, requested);
    try {
      const hostRead = workspace.host?.readTextFile;
      const text = hostRead ? await HostFileError.wrap(requested, "read", () => hostRead(file.path)) : await readWhole(file, signal);
      return { ok: true, file: file.path, text };
    } finally {
      await file.handle.close();
    }
  } catch (error) {
    return { ok: false, failure: fileToolFailure(error, requested) };
  }
}
