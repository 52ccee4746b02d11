/** The number the next rotation of a context's log will take. */
import type { Context } from "../context/index.js";

/**
 * One more than the highest rotation of `context` (1 without any): every log
 * numbers a new rotation so, and the soul owning the context is the only
 * writer, so a compaction can name its rotation in what it writes.
 */
export async function nextRotation(context: Context): Promise<number> {
  return Math.max(0, ...(await context.rotations()).map((rotation) => rotation.n)) + 1;
}
