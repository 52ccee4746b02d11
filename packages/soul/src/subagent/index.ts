/**
 * @kosong/soul/subagent: child souls run from a tool (subagents). See
 * {@link runSubagent}.
 */
import "../session/tool-context.js";

export { runSubagent, type SubagentOptions, type SubagentResult } from "./run-subagent.js";
export { subagentToolResult } from "./subagent-tool-result.js";
export { SubagentOutsideSoulError } from "./subagent-outside-soul-error.js";
export type { ToolTurn } from "../loop/tool-turn.js";
export type { SubagentEventPayload } from "../events/events.js";
