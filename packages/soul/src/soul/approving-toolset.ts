/**
 * The agent's toolset as the loop hands it to `step()`: every call gets an
 * approval bound to it (so an `ApprovalRequest` names the call and the tool).
 */
import type { Tool, ToolCall, ToolHandleOptions, ToolResult, Toolset } from "@kosong/core";
import type { Approval } from "./approval.js";

/** `toolset` with `context.approval` set for each call to `approval.forCall(call)`. */
export function approvingToolset(toolset: Toolset, approval: Approval): Toolset {
  return {
    get tools(): readonly Tool[] {
      return toolset.tools;
    },
    handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const context = { ...options.context, approval: approval.forCall(call.id, call.function.name, options.signal) };
      return toolset.handle(call, { ...options, context });
    },
  };
}
