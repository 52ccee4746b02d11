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
/** A branch of the conversation as `Context.branches()` lists it (here rather than at the root, which keeps its 50 names). */
export type { ContextBranch } from "../context/branch-tree.js";
