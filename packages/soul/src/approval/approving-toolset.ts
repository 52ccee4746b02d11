/**
 * The agent's toolset as the loop hands it to `step()`: every call gets an
 * approval bound to it (so an `ApprovalRequest` names the call and the tool),
 * and, when the tool has a time limit, runs under it.
 */
import type { Tool, ToolCall, ToolHandleOptions, ToolResult, Toolset } from "@kosong/core";
import type { Approval } from "./approval.js";
import { runWithTimeLimit } from "../loop/tool-time-limit.js";

/**
 * `toolset` with `context.approval` set for each call to
 * `approval.forCall(call)`, and each call limited to `limitFor(tool name)`
 * ms of working time (null: no limit).
 */
export function approvingToolset(toolset: Toolset, approval: Approval, limitFor: (toolName: string) => number | null = () => null): Toolset {
  return {
    get tools(): readonly Tool[] {
      return toolset.tools;
    },
    handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const forCall = approval.forCall(call.id, call.function.name, options.signal);
      const limit = limitFor(call.function.name);
      if (limit === null) return toolset.handle(call, { ...options, context: { ...options.context, approval: forCall } });
      return runWithTimeLimit(call, limit, options.signal, ({ signal, pausing }) =>
        toolset.handle(call, { ...options, signal, context: { ...options.context, approval: pausing(forCall) } }),
      );
    },
  };
}
