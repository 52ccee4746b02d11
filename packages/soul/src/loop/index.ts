/** Public exports of the soul-loop area of @kosong/soul (see ../index.ts). */
import "./tool-context.js";

export { Soul, type RunOptions, type SoulOptions, type SoulStatus, type TurnOptions } from "./soul.js";
export type { AgentSpec } from "./runtime.js";
export type { CompactionOutcome, SoulStream, Turn, TurnResult } from "./turn.js";
export {
  partEventTypes,
  approvalKinds,
  type ApprovalKind,
  type CompactionReason,
  type RevertReason,
  type SoulEvent,
  type SoulEventOf,
  type SoulEventPayloads,
  type SoulEventType,
  type StopReason,
  type UserInput,
} from "./events.js";
export { serializeEvent, parseEvent, WireParseError } from "./wire.js";
export { EventStream, StreamAlreadyIteratedError } from "./event-stream.js";
export {
  Approval,
  type ApprovalAnswer,
  type ApprovalListener,
  type ApprovalOptions,
  type ApprovalRequestInfo,
  type ToolApproval,
} from "./approval.js";
export { ToolRejectedError } from "./tool-rejected-error.js";
export { approveAll, askApproval, NO_APPROVAL_CHANNEL_MESSAGE } from "./ask-approval.js";

export { ToolTimeoutError } from "./tool-timeout-error.js";
export type { SoulSession, SoulSessionOptions } from "./session.js";
export { defaultSoulConfig, resolveSoulConfig, type RetryTiming, type SoulConfig, type SoulConfigInput } from "./config.js";
export { ApprovalRequestNotFoundError, ContextInUseError, EmptyInputError, RewriteTargetError, SoulBusyError, SoulError } from "./errors.js";
export { retryDelay } from "./retry-delay.js";
export { dmailMessage } from "./dmail.js";
export type { Replacement } from "./rewrite.js";
