/** Public exports of the conversation area of @kosong/soul: what makes a conversation valid for providers, and repairs. */
export {
  type ConversationRules,
  type ConversationViolation,
  type ConversationViolationKind,
  isEmptyMessage,
  validateConversation,
} from "./validate-conversation.js";
export {
  CONTINUED_CONVERSATION_TEXT,
  type ConversationRepair,
  MISSING_TOOL_RESULT_TEXT,
  repairConversation,
} from "./repair-conversation.js";
export { type ConversationBlock, conversationBlocks } from "./conversation-blocks.js";
/** The id of a visible checkpoint message (`<system>CHECKPOINT n</system>`), null for any other message. */
export { checkpointMessageId } from "../context/checkpoint-message.js";
/** A branch of the conversation as `Context.branches()` lists it (here rather than at the root, which keeps its 50 names). */
export type { ContextBranch } from "../context/branch-tree.js";
/** The error a tool call interrupted by an abort (or cut by a crash) reads as its result: a front end tells such a result from a failure by it. */
export { TOOL_INTERRUPTED_MESSAGE } from "../context/interrupted-tool-result.js";
