/**
 * One way kosong rewrites a small file of its own (session metadata, trust,
 * permission rules, subagent records, checkpoint times): the new text goes
 * to a temporary file beside it, which is then renamed over it. A process
 * killed mid-write, or a reader looking at the same moment, sees the old
 * file or the new one, never a truncated one; two writers each leave a
 * whole file (the last rename wins).
 */
import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";

/**
 * Replaces `file` with `text` (mode 0600). On failure the temporary file is
 * removed and `file` is left as it was.
 */
export async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: "wx" });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
