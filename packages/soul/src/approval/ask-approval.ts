/**
 * How a tool that must not act unapproved asks for approval. It fails closed:
 * a tool run without an approval channel (core's `step()` or `generate()`
 * without `toolContext.approval`, or `toolset.handle()` without it) refuses
 * instead of acting. A host that runs such tools outside a soul opts in by
 * passing an approval, e.g. {@link approveAll}.
 */
import { toolError, type ToolContext, type ToolReturnValue } from "@kosong/core";
import type { ApprovalRequestOptions, ToolApproval } from "./approval.js";

/** The refusal's message to the model when no approval channel was given. */
export const NO_APPROVAL_CHANNEL_MESSAGE =
  "This tool needs the user's approval, and no approval channel was given, so it did not run.";

/**
 * Asks approval for `action` (a short name, the key `approve_for_session`
 * remembers, e.g. "run shell command") described by `description`.
 * Resolves to `null` when approved; otherwise to the result the tool returns
 * instead of acting: the user's rejection, or an error result saying that no
 * approval channel was given. Rejects with an AbortError when the call is
 * cancelled while waiting. `scope`, when given, tells the user what
 * approving for the session covers (e.g. "this exact command");
 * `options.once` offers no approving for the session at all.
 *
 * ```ts
 * async execute({ command }, context) {
 *   const refused = await askApproval(context, "run shell command", command);
 *   if (refused) return refused;
 *   return run(command);
 * }
 * ```
 */
export async function askApproval(context: ToolContext, action: string, description: string, scope?: string, options?: ApprovalRequestOptions): Promise<ToolReturnValue | null> {
  if (context.approval === undefined) return toolError({ message: NO_APPROVAL_CHANNEL_MESSAGE, brief: "No approval channel" });
  const answer = await context.approval.request(action, description, scope, options);
  return answer.approved ? null : answer.rejection;
}

/**
 * An approval that approves every request: what a host passes as
 * `toolContext.approval` to run approval-needing tools through core's
 * `step()` or `generate()` without asking anyone
 * (`step(provider, system, toolset, history, { toolContext: { approval: approveAll } })`).
 */
export const approveAll: ToolApproval = {
  request: () => Promise.resolve({ approved: true }),
};
