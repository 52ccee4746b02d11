/** Public exports of the compaction area of @kosong/soul. */
export type { Compaction, CompactionDetails, CompactionOptions, CompactionResult, ProviderCount } from "./compaction.js";
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
export type { BudgetOptions } from "./budget-options.js";
export { droppedNotice, isToolOutputStub, toolOutputStub } from "./compaction-notice.js";
export { truncateText } from "./truncate-text.js";
export { IMPORTANT_WORDS, isErrorResult, isImportantMessage, isUserTyped } from "./message-importance.js";
export { extractiveSummary, type ExtractiveSummaryOptions } from "./extractive-summary.js";
export { PreserveRecentCompaction, type PreserveRecentCompactionOptions } from "./preserve-recent-compaction.js";
export { PreserveImportantCompaction, type PreserveImportantCompactionOptions } from "./preserve-important-compaction.js";
export { SmartCompaction, type SmartCompactionOptions } from "./smart-compaction.js";
export { AUTO_SUMMARY_PROMPT, AUTO_SUMMARY_SECTIONS, checkSummary, type SummaryRejection } from "./auto-summary-prompt.js";
export { type FileReader, type FileRecoveryOptions, type RecoveredFiles, recoverFiles, withLineNumbers } from "./file-recovery.js";
export { AutoCompaction, type AutoCompactionOptions, type CompactModel } from "./auto-compaction.js";
export {
  createRetentionStrategy,
  defaultCompaction,
  type DefaultCompactionOptions,
  type RetentionPreference,
  type RetentionStrategyOptions,
} from "./retention-strategy.js";
export { type CheckedCompaction, checkCompaction } from "./checked-compaction.js";
export { nodeFileReader } from "./node-file-reader.js";
