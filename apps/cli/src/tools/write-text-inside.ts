/**
 * Writing a text file of the workspace for a tool, after its approval: the
 * file is opened (created, with its folders, when allowed) through the
 * confined walk at that moment, so a path swapped for a link while the user
 * decided is checked again. With a host that writes files (an editor over
 * ACP), the checked file's real path is handed to the host, which writes it
 * through its buffer.
 */
import { appendText, openForWrite, readWhole, replaceWhole } from "./confined-fs.js";
import { HostFileError } from "./host-file-error.js";
import type { Workspace } from "./workspace.js";

/** What to write. */
export interface TextWrite {
  /** The text to write (or to add at the end with `append`). */
  content: string;
  append?: boolean;
  /** Create the file (and its folders) when missing (default true). */
  create?: boolean;
  /** Write only if the file still holds exactly this text (what an edit was made from). */
  expected?: string;
  /** Stops a read of the file. */
  signal?: AbortSignal;
}

/**
 * Writes `requested`; returns its real path, and `changed: true` (nothing
 * written) when it no longer held {@link TextWrite.expected}. Throws as
 * `openForWrite` does, or a `HostFileError`.
 */
export async function writeTextInside(workspace: Workspace, requested: string, write: TextWrite): Promise<{ file: string; changed: boolean }> {
  const hostWrite = workspace.host?.writeTextFile;
  const hostRead = workspace.host?.readTextFile;
  // Through a host the file is only checked (and created) here, so it is opened without O_APPEND: the host writes all of it.
  const file = await openForWrite(workspace, requested, { append: write.append === true && !hostWrite, create: write.create ?? true });
  try {
    // Compared with what the tool read: the host's text when the host reads files.
    const needsCurrent = write.expected !== undefined || (write.append === true && hostWrite !== undefined && hostWrite !== null);
    let current = "";
    if (needsCurrent && !file.created) current = hostRead ? await HostFileError.wrap(requested, "read", () => hostRead(file.path)) : await readWhole(file, write.signal);
    if (write.expected !== undefined && current !== write.expected) return { file: file.path, changed: true };
    if (hostWrite) {
      await HostFileError.wrap(requested, "write", () => hostWrite(file.path, write.append ? current + write.content : write.content));
    } else {
      await (write.append ? appendText(file, write.content) : replaceWhole(file, write.content));
    }
    return { file: file.path, changed: false };
  } finally {
    await file.handle.close();
  }
}
