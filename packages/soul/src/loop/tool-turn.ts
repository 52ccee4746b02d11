/**
 * What a tool can do to the turn it runs in (`context.turn`): add events
 * nested under its call, count tokens it spent in the turn's usage, and ask
 * the turn's approval channel on behalf of someone else. A tool that runs a
 * child soul (`runSubagent`) uses all three; other tools need none.
 */
import type { TokenUsage } from "@kosong/core";
import type { ApprovalAnswer, ApprovalRequestInfo } from "../approval/approval.js";
import type { SubagentEventPayload } from "../events/events.js";

/** The running turn, as a tool sees it. */
export interface ToolTurn {
  /**
   * Emits a `SubagentEvent` into the turn's events, in order with the
   * turn's own (set `parent_tool_call_id` to the calling tool's
   * `context.toolCallId`).
   */
  emitSubagentEvent(payload: SubagentEventPayload): void;
  /** Adds `usage` to the turn's usage (`TurnEnd.usage`, `TurnResult.usage`): tokens a child soul spent. */
  addUsage(usage: TokenUsage): void;
  /**
   * Asks the turn's approval (the one its host answers) with a request of
   * the caller's making: a child soul's tools ask through it, named by the
   * child (`sender`) and by their own call (`tool_call_id`).
   */
  requestApproval(request: Omit<ApprovalRequestInfo, "id">, signal?: AbortSignal): Promise<ApprovalAnswer>;
}
