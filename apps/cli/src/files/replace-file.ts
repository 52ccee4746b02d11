/**
 * One way kosong rewrites a small file of its own (session metadata, trust,
 * permission rules, subagent records, checkpoint times): through
 * `replaceFileDurably` of @kosong/context, a synced temporary file renamed
 * over it and the folder synced after. A process killed mid-write, a power
 * loss or kernel crash, or a reader looking at the same moment sees the old
 * file or the new one, never a truncated or empty one; two writers each
 * leave a whole file (the last rename wins).
 */
import { replaceFileDurably } from "@kosong/context";

/**
 * Replaces `file` with `text` (mode 0600). On failure the temporary file is
 * removed and `file` is left as it was.
 */
export function replaceFile(file: string, text: string): Promise<void> {
  return replaceFileDurably(file, text, 0o600);
}
