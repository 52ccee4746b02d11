/**
 * Turns the expected failures of the file tools (a path outside the
 * workspace, a missing file, a folder where a file was expected, a FIFO or a
 * hard-linked file, a host's file system refusing) into error results the model can act on, with a short
 * brief for the user.
 */
import { toolError, type ToolReturnValue } from "@kosong/core";
import { HardLinkError, NotRegularFileError } from "./confined-fs.js";
import { HostFileError } from "./host-file-error.js";
import { PathEscapeError } from "./workspace.js";

const errnoBriefs: Record<string, string> = {
  ENOENT: "Not found",
  EISDIR: "Is a folder",
  ENOTDIR: "Not a folder",
  EACCES: "Permission denied",
  EPERM: "Permission denied",
  ELOOP: "Too many symlinks",
  ENAMETOOLONG: "Name too long",
  EINVAL: "Invalid path",
};

/** The error result for `error`, raised while a tool worked on `requested`. Unexpected errors are rethrown. */
export function fileToolFailure(error: unknown, requested: string): ToolReturnValue {
  if (error instanceof PathEscapeError) return toolError({ message: error.message, brief: "Path outside the working directory" });
  if (error instanceof NotRegularFileError) return toolError({ message: error.message, brief: `Not a regular file (${error.kind})` });
  if (error instanceof HardLinkError) return toolError({ message: error.message, brief: "Hard-linked file refused" });
  if (error instanceof HostFileError) return toolError({ message: error.message, brief: `Editor could not ${error.operation}` });
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && errnoBriefs[code]) {
    return toolError({ message: `\`${requested}\`: ${errnoBriefs[code]!.toLowerCase()} (${code}).`, brief: errnoBriefs[code] });
  }
  throw error;
}
