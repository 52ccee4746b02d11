/** A child's turn as the result of the parent's tool call. */
import { toolError, toolOk, type ToolReturnValue } from "@kosong/core";
import type { SubagentResult } from "./run-subagent.js";

/**
 * The child's final answer as a successful result, or an error result when
 * its turn did not end normally (an error, an abort, a rejected tool, the
 * step limit): the parent's model reads why, and the parent goes on. The
 * result's `extras` carry `agent_id` and `subagent_type` (to resume it).
 */
export function subagentToolResult(result: SubagentResult): ToolReturnValue {
  const extras = { agent_id: result.agentId, subagent_type: result.subagentType, stop_reason: result.turn.stopReason };
  const { stopReason, error } = result.turn;
  const who = `Agent ${result.agentId} (${result.subagentType})`;
  if (stopReason === "no_tool_calls") return toolOk({ output: result.text, message: `${who} finished.`, brief: `${result.subagentType} finished`, extras });
  const why = stopReason === "error" ? `failed: ${error?.message ?? "unknown error"}` : describeStop(stopReason);
  return toolError({ message: `${who} ${why}`, brief: `${result.subagentType} ${stopReason}`, ...(result.text !== "" && { output: result.text }), extras });
}

function describeStop(stopReason: string): string {
  switch (stopReason) {
    case "aborted":
      return "was aborted before it finished.";
    case "tool_rejected":
      return "stopped: the user rejected one of its tool calls.";
    default:
      return "stopped at its step limit before it finished; resume it to go on.";
  }
}
