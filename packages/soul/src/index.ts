/** @kosong/soul: the agent runtime built on @kosong/context and @kosong/core. */
export { estimateTokens } from "./estimate-tokens.js";
export type { Compaction, CompactionDetails, CompactionOptions, CompactionResult } from "./compaction/compaction.js";
export { FileRegistry, type TouchedFile } from "./compaction/file-registry.js";
