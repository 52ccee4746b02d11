import { open } from "node:fs/promises";
import type { FileReader } from "./file-recovery.js";

/**
 * A {@link FileReader} for AutoCompaction's file recovery that reads at
 * most `maxBytes` (default 1 MB) of a file as UTF-8, so a huge file costs
 * no more than what recovery can keep. The caller (the soul) passes it in;
 * strategies do no I/O of their own.
 */
export function nodeFileReader(maxBytes = 1_000_000): FileReader {
  return async (path, signal) => {
    signal?.throwIfAborted();
    const handle = await open(path, "r");
    try {
      const buffer = Buffer.alloc(maxBytes);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
      return buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  };
}
