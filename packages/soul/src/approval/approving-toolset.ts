/**
 * The agent's toolset as the loop hands it to `step()`: every call gets an
 * approval bound to it (so an `ApprovalRequest` names the call and the tool),
 * and, when the tool has a time limit, runs under it.
 */
import type { Tool, ToolCall, ToolHandleOptions, ToolResult, Toolset } from "@kosong/core";
import type { Approval, ToolApproval } from "./approval.js";
import { runWithTimeLimit } from "../loop/tool-time-limit.js";

/**
 * `toolset` with `context.approval` set for each call to
 * `approval.forCall(call)`, and each call limited to `limitFor(tool name)`
 * ms of working time (null: no limit). The id of a call cancelled while it
 * waited for its first approval (so it never ran) is added to `notRun`.
 */
export function approvingToolset(
  toolset: Toolset,
  approval: Approval,
  limitFor: (toolName: string) => number | null = () => null,
  notRun: Set<string> = new Set(),
): Toolset {
  return {
    get tools(): readonly Tool[] {
      return toolset.tools;
    },
    handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const forCall = noticingCutApproval(approval.forCall(call.id, call.function.name, options.signal), () => notRun.add(call.id), options.signal);
      const limit = limitFor(call.function.name);
      if (limit === null) return toolset.handle(call, { ...options, context: { ...options.context, approval: forCall } });
      return runWithTimeLimit(call, limit, options.signal, ({ signal, pausing }) =>
        toolset.handle(call, { ...options, signal, context: { ...options.context, approval: pausing(forCall) } }),
      );
    },
  };
}

/** `approval`, calling `onCut` when a request is cancelled by `signal` before any request of the call was approved. */
function noticingCutApproval(approval: ToolApproval, onCut: () => void, signal: AbortSignal | undefined): ToolApproval {
  let approvedBefore = false;
  return {
    request: async (...args) => {
      try {
        const answer = await approval.request(...args);
        approvedBefore ||= answer.approved;
        return answer;
      } catch (error) {
        if (signal?.aborted && !approvedBefore) onCut();
        throw error;
      }
    },
  };
}
