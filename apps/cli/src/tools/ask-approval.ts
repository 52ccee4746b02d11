/**
 * The mutating tools (WriteFile, EditFile, Shell) ask the user before they
 * act, through the soul's approval in their `ToolContext`. They fail closed:
 * run without an approval channel (outside a soul, without
 * `toolContext.approval`), they refuse with an error result instead of
 * acting; a host that wants them to act unasked passes the soul's
 * `approveAll`.
 */
import type { ToolContext, ToolReturnValue } from "@kosong/core";
import { askApproval as askSoulApproval } from "@kosong/soul";

/**
 * Asks approval for `action` (the key `approve for session` remembers, e.g.
 * the tool name) described by `description`; `scope` says what approving
 * for the session covers (by default every call with that key, e.g. every
 * WriteFile call). Returns null when approved, else the result to return
 * instead of acting (the rejection, or the refusal when no approval channel
 * was given).
 */
export function askApproval(context: ToolContext, action: string, description: string, scope = `every ${action} call`): Promise<ToolReturnValue | null> {
  return askSoulApproval(context, action, description, scope);
}
