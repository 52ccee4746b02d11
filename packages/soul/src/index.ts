/**
 * @kosong/soul: the agent runtime built on @kosong/context and @kosong/core.
 * The root holds what an agent builder needs: the `Soul` loop, its
 * checkpointed `Context`, approvals, D-Mail, events and errors. Compaction
 * strategies are in `@kosong/soul/compaction`, token counting in
 * `@kosong/soul/tokens`, conversation checks and repairs in
 * `@kosong/soul/conversation`.
 */
import "./soul/tool-context.js";

export { Soul, type RunOptions, type SoulOptions, type SoulStatus, type TurnOptions } from "./soul/soul.js";
export type { AgentSpec } from "./soul/runtime.js";
export type { CompactionOutcome, SoulStream, Turn, TurnResult } from "./soul/turn.js";
export type { SoulEvent, SoulEventOf, SoulEventType, StopReason, UserInput, ApprovalKind } from "./soul/events.js";
export { serializeEvent, parseEvent, WireParseError } from "./soul/wire.js";
export { StreamAlreadyIteratedError } from "./soul/event-stream.js";
export { Approval, type ApprovalAnswer, type ApprovalRequestInfo, type ToolApproval } from "./soul/approval.js";
export { approveAll, askApproval } from "./soul/ask-approval.js";
export { ToolRejectedError } from "./soul/tool-rejected-error.js";
export type { SoulSession, SoulSessionOptions } from "./soul/session.js";
export { defaultSoulConfig, type RetryTiming, type SoulConfig, type SoulConfigInput } from "./soul/config.js";
export { ApprovalRequestNotFoundError, ContextInUseError, EmptyInputError, RewriteTargetError, SoulBusyError, SoulError } from "./soul/errors.js";
export type { Replacement } from "./soul/rewrite.js";
export { Context, type ContextBranch, type ContextCheckpoint, type ContextOptions, type ContextRestoreReport } from "./context/index.js";
export { CheckpointNotFoundError } from "./context/index.js";
export { SendDMail } from "./tools/index.js";
export { CompactionError, FileRegistry, type Compaction } from "./compaction/index.js";
export type { ContextUsage } from "./tokens/index.js";
