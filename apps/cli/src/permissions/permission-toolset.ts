/**
 * The agent's toolset under the session's permission rules: a call a `deny`
 * rule matches is refused with an error result naming the rule, without
 * asking; one only an `allow` rule matches runs without asking (a Shell
 * command the model asks to run outside the sandbox is still asked for);
 * every other call asks as before. FetchURL is the exception to the blanket
 * allow: it reaches hosts the call does not name (redirects), so it is
 * handed its usual approval and checks every host it is led to against the
 * rules itself (`hostRule` of `fetchUrlTool`), asking for one no rule allows.
 */
import type { Tool, ToolCall, ToolHandleOptions, ToolResult, Toolset } from "@kosong/core";
import { toolError } from "@kosong/core";
import { approveAll } from "@kosong/soul";
import type { PermissionRules } from "./permission-rules.js";

/** Tools that apply the rules to each target they reach themselves, so an allow rule matching the call approves nothing beyond what they check. */
const checksEachTarget: ReadonlySet<string> = new Set(["FetchURL"]);

/** `toolset` with `rules` applied to each call. */
export function withPermissionRules(toolset: Toolset, rules: PermissionRules): Toolset {
  if (rules.rules.length === 0) return toolset;
  return {
    get tools(): readonly Tool[] {
      return toolset.tools;
    },
    handle(call: ToolCall, options: ToolHandleOptions = {}): Promise<ToolResult> {
      const args = parseArguments(call.function.arguments);
      const decision = rules.decide(call.function.name, args);
      if (decision?.effect === "deny") {
        const message = `Denied by the permission rule \`deny: ${decision.rule.text}\` (${decision.rule.source}): do not retry it.`;
        return Promise.resolve({ tool_call_id: call.id, return_value: toolError({ message, brief: "Denied by a rule" }) });
      }
      if (decision?.effect === "allow" && args.outside_sandbox !== true && !checksEachTarget.has(call.function.name)) return toolset.handle(call, { ...options, context: { ...options.context, approval: approveAll } });
      return toolset.handle(call, options);
    },
  };
}

function parseArguments(text: string | null): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || "{}");
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
