/**
 * The mutating tools (WriteFile, EditFile, Shell) ask the user before they
 * act, through the soul's approval in their `ToolContext`. Outside a soul
 * (no approval in the context) they act without asking.
 */
import type { ToolContext, ToolReturnValue } from "@kosong/core";
import "@kosong/soul";

/**
 * Asks approval for `action` (the key `approve for session` remembers, e.g.
 * the tool name) described by `description`; `scope` says what approving
 * for the session covers (by default every call with that key, e.g. every
 * WriteFile call). Returns null when approved, else the rejection to return
 * as the tool's result.
 */
export async function askApproval(context: ToolContext, action: string, description: string, scope = `every ${action} call`): Promise<ToolReturnValue | null> {
  const answer = await context.approval?.request(action, description, scope);
  return answer && !answer.approved ? answer.rejection : null;
}
