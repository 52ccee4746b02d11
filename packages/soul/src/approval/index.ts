/** Exports of the approval area of @kosong/soul for `./internal` (the public ones are chosen in ../index.ts). */
export {
  Approval,
  type ApprovalAnswer,
  type ApprovalListener,
  type ApprovalForward,
  type ApprovalOptions,
  type ApprovalRequestInfo,
  type ApprovalRequestOptions,
  type ToolApproval,
} from "./approval.js";
export { ToolRejectedError } from "./tool-rejected-error.js";
export { approveAll, askApproval, NO_APPROVAL_CHANNEL_MESSAGE } from "./ask-approval.js";
