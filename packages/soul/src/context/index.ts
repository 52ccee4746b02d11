/** Public exports of the checkpointed-context area of @kosong/soul (see ../index.ts). */
export {
  Context,
  type CheckpointOptions,
  type ClearContinuation,
  type ClearOptions,
  type ContextCheckpoint,
  type ContextClear,
  type ContextContinuation,
  type ContextStep,
  type ContextCommit,
  type ContextOptions,
  type ContextRestoreReport,
  type ContextRevert,
  type RevertOptions,
  type RestoreRotationOptions,
  type ContextRotationRestore,
  type InterruptedToolCall,
  type AddBranchOptions,
} from "./context.js";
export { branchTree, type ContextBranch, type CurrentBranch } from "./branch-tree.js";
export { checkpointMessage, checkpointMessageId } from "./checkpoint-message.js";
export { CheckpointNotFoundError, type CheckpointName } from "./checkpoint-not-found-error.js";
export { estimateTextTokens } from "./estimate-text-tokens.js";
export { TOOL_INTERRUPTED_BEFORE_RUN_MESSAGE, TOOL_INTERRUPTED_MESSAGE, interruptedToolMessage, interruptedToolResult } from "./interrupted-tool-result.js";
