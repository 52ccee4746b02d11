/** Public exports of the compaction area of @kosong/soul. */
export type { Compaction, CompactionDetails, CompactionOptions, CompactionResult } from "./compaction.js";
export { FileRegistry, type TouchedFile } from "./file-registry.js";
export { CompactionError } from "./compaction-error.js";
export {
  COMPACTION_OUTPUT_PREFIX,
  COMPACTION_SYSTEM_PROMPT,
  renderMessage,
  SIMPLE_SUMMARY_PROMPT,
  summaryMessage,
  summaryRequest,
} from "./summary-request.js";
export {
  prepareSimpleCompaction,
  SimpleCompaction,
  type SimpleCompactionOptions,
  type SimpleCompactionPlan,
} from "./simple-compaction.js";
