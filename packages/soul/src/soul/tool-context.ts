/**
 * What the soul adds to every tool's `ToolContext` (core's extension point):
 * a `defineTool` tool reads `context.approval` and `context.session` typed.
 * Both are absent when a tool runs outside a soul.
 *
 * ```ts
 * const shell = defineTool({
 *   name: "Shell", description: "...", parameters: z.object({ command: z.string() }),
 *   async execute({ command }, { approval }) {
 *     const answer = await approval?.request("run shell command", command);
 *     if (answer && !answer.approved) return answer.rejection;
 *     ...
 *   },
 * });
 * ```
 */
import type { ToolApproval } from "./approval.js";
import type { SoulSession } from "./session.js";

declare module "@kosong/core" {
  interface ToolContextExtensions {
    /** Asks the user to approve an action of this tool call. */
    approval: ToolApproval;
    /** The session the tool runs in. */
    session: SoulSession;
  }
}

export type { ToolApproval, SoulSession };
