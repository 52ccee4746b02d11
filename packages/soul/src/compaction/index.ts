/** Public exports of the compaction area of @kosong/soul. */
export type { Compaction, CompactionDetails, CompactionOptions, CompactionResult } from "./compaction.js";
export { FileRegistry, type TouchedFile } from "./file-registry.js";
