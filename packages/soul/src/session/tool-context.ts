/**
 * What the soul adds to every tool's `ToolContext` (core's extension point):
 * a `defineTool` tool reads `context.approval` and `context.session` typed.
 * Both are absent when a tool runs outside a soul; ask through
 * `askApproval`, which then refuses instead of acting.
 *
 * ```ts
 * const shell = defineTool({
 *   name: "Shell", description: "...", parameters: z.object({ command: z.string() }),
 *   async execute({ command }, context) {
 *     const refused = await askApproval(context, "run shell command", command);
 *     if (refused) return refused;
 *     ...
 *   },
 * });
 * ```
 */
import type { ToolApproval } from "../approval/approval.js";
import type { ToolTurn } from "../loop/tool-turn.js";
import type { SoulSession } from "./session.js";

declare module "@kosong/core" {
  interface ToolContextExtensions {
    /** Asks the user to approve an action of this tool call. */
    approval: ToolApproval;
    /** The session the tool runs in. */
    session: SoulSession;
    /** The running turn: nested events, usage and approvals on behalf of a child soul (see `runSubagent`). */
    turn: ToolTurn;
  }
}

export type { ToolApproval, SoulSession, ToolTurn };
