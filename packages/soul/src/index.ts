/**
 * @kosong/soul: the agent runtime built on @kosong/context and @kosong/core.
 * The root holds what an agent builder needs: the `Soul` loop, its
 * checkpointed `Context`, approvals, D-Mail, events and errors. Compaction
 * strategies are in `@kosong/soul/compaction`, token counting in
 * `@kosong/soul/tokens`, conversation checks and repairs in
 * `@kosong/soul/conversation`, the hooks' types (`SoulHooks`, each input
 * and outcome) and `HookBlockedError` in `@kosong/soul/hooks`.
 */
import "./session/tool-context.js";

export { Soul, type RunOptions, type SoulOptions, type SoulStatus, type TurnOptions } from "./loop/soul.js";
export type { AgentSpec } from "./loop/runtime.js";
export type { CompactionOutcome, SoulStream, Turn, TurnResult } from "./loop/turn.js";
export type { SoulEvent, SoulEventOf, SoulEventType, StopReason, UserInput, ApprovalKind } from "./events/events.js";
export { serializeEvent, parseEvent, WireParseError } from "./events/wire.js";
export { StreamAlreadyIteratedError } from "./events/event-stream.js";
export { Approval, type ApprovalAnswer, type ApprovalRequestInfo, type ToolApproval } from "./approval/approval.js";
export { approveAll, askApproval } from "./approval/ask-approval.js";
export { ToolRejectedError } from "./approval/tool-rejected-error.js";
export type { SoulSession, SoulSessionOptions } from "./session/session.js";
export { defaultSoulConfig, type RetryTiming, type SoulConfig, type SoulConfigInput } from "./loop/config.js";
export { ApprovalRequestNotFoundError, ContextInUseError, EmptyInputError, RewriteTargetError, SoulBusyError, SoulError } from "./errors.js";
export type { Replacement } from "./loop/rewrite.js";
export { Context, type ContextCheckpoint, type ContextOptions, type ContextRestoreReport } from "./context/index.js";
export { CheckpointNotFoundError } from "./context/index.js";
export { SendDMail } from "./dmail/index.js";
export { CompactionError, FileRegistry, type Compaction } from "./compaction/index.js";
export type { ContextUsage } from "./tokens/index.js";
