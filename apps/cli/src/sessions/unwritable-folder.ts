/**
 * A clear error for a folder kosong must write to but cannot: a read-only
 * folder, or one on a read-only file system (where Node's recursive mkdir
 * reports ENOENT, which reads as if a folder were missing).
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { UsageError } from "../cli-error.js";

const writeRefusals = new Set(["EACCES", "EPERM", "EROFS", "ENOENT"]);

/**
 * When `error` (from creating something inside `target`) means that the
 * nearest existing folder of `target` is not writable, a {@link UsageError}
 * saying so, naming `what` (e.g. "KOSONG_HOME"); else null.
 */
export async function unwritableFolderError(error: unknown, target: string, what: string): Promise<UsageError | null> {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === undefined || !writeRefusals.has(code)) return null;
  let folder = path.resolve(target);
  for (;;) {
    const found = await stat(folder).then((s) => s.isDirectory(), () => null);
    if (found !== null) {
      if (!found) return null;
      break;
    }
    const parent = path.dirname(folder);
    if (parent === folder) return null;
    folder = parent;
  }
  return new UsageError(
    `Cannot create ${target}: ${folder} is not writable (${code}; kosong saves its sessions under ${what}). Make it writable, or set KOSONG_HOME to a folder you can write to.`,
    { cause: error },
  );
}
