/**
 * Plan mode: while it is on, the agent only reads. WriteFile and EditFile
 * are refused, Shell runs only commands that read ({@link isReadOnlyCommand}),
 * MCP tools are refused, and the model is offered `ExitPlanMode`: it
 * writes its plan there, the user approves it, possibly after editing it
 * (plan mode then ends and the model carries out the plan as approved in
 * the same turn), or rejects it with feedback (the model revises the plan).
 * Switched by Shift-Tab, `/plan` and `--plan`. The `Agent` tool runs in
 * plan mode, but its children meet the same refusals as the parent
 * ({@link planModeRefusals}), whatever their kind: the mode is the parent's
 * at the moment a child's tool call runs, so a background child started
 * before plan mode was switched on is refused from then on.
 */
import { type CallableTool, parseToolArguments, SimpleToolset, type Tool, type ToolCall, toolError, type ToolHandleOptions, type ToolResult, type ToolReturnValue, type Toolset, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import { askApproval } from "@kosong/soul";
import * as z from "zod";
import { isReadOnlyCommand } from "./read-only-command.js";

/**
 * Tools that only read (or only touch the conversation): never refused in
 * plan mode. `Agent` runs: its children's tools are under the same refusals
 * ({@link planModeRefusals}), whatever their kind.
 */
const readingTools = new Set(["ReadFile", "ReadMediaFile", "FetchURL", "ListDir", "Glob", "Grep", "Recall", "Skill", "SetTodoList", "AskUserQuestion", "SendDMail", "Agent"]);

/** What the model is told at the start of a prompt sent in plan mode. */
export const planModeNote =
  "<system>Plan mode is on: only tools that read work (WriteFile, EditFile, writing Shell commands and MCP tools are refused). Explore, then call ExitPlanMode with your plan; once the user approves it, carry it out.</system>";

/**
 * The on/off switch, shared by the toolset, the prompt and the footer, and
 * the plans waiting for the user's approval (which the user may edit
 * before approving: the edited plan is the one carried out).
 */
export class PlanMode {
  /** Plans asking for approval now, by the id of their ExitPlanMode call. */
  readonly #awaiting = new Map<string, string>();

  constructor(public on = false) {}

  /** The plan ExitPlanMode call `toolCallId` asks the user to approve now (as edited so far), or null when none does. */
  awaiting(toolCallId: string): string | null {
    return this.#awaiting.get(toolCallId) ?? null;
  }

  /**
   * Replaces the plan awaiting approval in call `toolCallId` with the
   * user's edit of it: once approved, the model is given `plan`. False (and
   * nothing changed) when no plan awaits there or `plan` is blank.
   */
  edit(toolCallId: string, plan: string): boolean {
    if (!this.#awaiting.has(toolCallId) || plan.trim() === "") return false;
    this.#awaiting.set(toolCallId, plan);
    return true;
  }

  /** Asks `approve` about `plan` (call `toolCallId`); resolves to the rejection, or to the plan approved (maybe edited meanwhile). */
  async review(toolCallId: string, plan: string, approve: () => Promise<ToolReturnValue | null>): Promise<{ rejected: ToolReturnValue } | { approved: string }> {
    this.#awaiting.set(toolCallId, plan);
    try {
      const rejected = await approve();
      return rejected ? { rejected } : { approved: this.#awaiting.get(toolCallId) ?? plan };
    } finally {
      this.#awaiting.delete(toolCallId);
    }
  }
}

/**
 * The approval key of ExitPlanMode call `toolCallId`: one per call, so no
 * permission rule reaches another plan (its request is `once`: hosts show
 * no "for the session" choice for it).
 */
export function exitPlanModeAction(toolCallId: string): string {
  return `ExitPlanMode: ${toolCallId}`;
}

/** The parameters of `ExitPlanMode` (listed in `tools/built-in-tool-parameters.ts`). */
export const exitPlanModeParameters = z.lazy(() => z.object({ plan: z.string().min(1).max(20_000).describe("The plan, in Markdown: the steps you will take, the files you will change.") }));

/** `ExitPlanMode` (Claude Code's name and shape): asks the user to approve `plan`; approved, plan mode ends. */
function exitPlanModeTool(mode: PlanMode): CallableTool {
  return defineBuiltInTool({
    name: "ExitPlanMode",
    description: "In plan mode, when your plan is ready: present it for the user's approval. Approved, plan mode ends and you carry the plan out; rejected, revise it following the user's feedback.",
    parameters: exitPlanModeParameters,
    async execute({ plan }, context) {
      if (!mode.on) return toolError({ message: "Plan mode is not on: go ahead with the work.", brief: "not in plan mode" });
      // Leaving plan mode is asked every time: only this plan can be approved (no "for the session" choice), and the key is this call's, so no rule covers a later plan.
      const review = await mode.review(context.toolCallId, plan, () =>
        askApproval(context, exitPlanModeAction(context.toolCallId), `Leave plan mode and carry out this plan:\n\n${plan}`, undefined, { once: true }),
      );
      if ("rejected" in review) return review.rejected;
      mode.on = false;
      if (review.approved === plan) return toolOk({ output: `The user approved the plan. Plan mode is off: carry out the plan now.\n\n${plan}`, brief: "plan approved" });
      return toolOk({ output: `The user edited your plan and approved it as edited. Plan mode is off: carry out the user's version now (it replaces yours).\n\n${review.approved}`, brief: "plan approved as edited" });
    },
  });
}

/** `inner` under plan mode `mode`: refusing what writes while it is on, with `ExitPlanMode` offered then. */
export function planModeToolset(inner: Toolset, mode: PlanMode): Toolset {
  const exit = new SimpleToolset([exitPlanModeTool(mode)]);
  return {
    get tools(): readonly Tool[] {
      return mode.on ? [...inner.tools, ...exit.tools] : inner.tools;
    },
    async handle(call: ToolCall, options?: ToolHandleOptions): Promise<ToolResult> {
      if (call.function.name === "ExitPlanMode") return exit.handle(call, options);
      return refused(call, mode, parentNextStep) ?? inner.handle(call, options);
    },
  };
}

/**
 * `inner` (a child agent's toolset) under the parent's plan mode `mode`:
 * while it is on, each call meets the parent's refusals. The mode is read
 * at each call, so a background child started before plan mode was
 * switched on is refused from then on, and one running when it is switched
 * off writes again.
 */
export function planModeRefusals(inner: Toolset, mode: PlanMode): Toolset {
  return {
    get tools(): readonly Tool[] {
      return inner.tools;
    },
    handle(call: ToolCall, options?: ToolHandleOptions): Promise<ToolResult> {
      const refusal = refused(call, mode, childNextStep);
      return refusal ? Promise.resolve(refusal) : inner.handle(call, options);
    },
  };
}

const parentNextStep = "Write the plan and call ExitPlanMode; the work starts once the user approves it.";
const childNextStep = "You are a subagent of a session in plan mode: change nothing, and answer with what you found and what you would change.";

/** The refusal of `call` while `mode` is on (ending with `next`), null when it may run. */
function refused(call: ToolCall, mode: PlanMode, next: string): ToolResult | null {
  const refusal = mode.on ? refusalOf(call) : null;
  return refusal === null ? null : { tool_call_id: call.id, return_value: toolError({ message: `${refusal} ${next}`, brief: "refused in plan mode" }) };
}

function refusalOf(call: ToolCall): string | null {
  const name = call.function.name;
  if (readingTools.has(name)) return null;
  if (name === "Shell") {
    let command: unknown;
    try {
      command = (parseToolArguments(call.function.arguments) as { command?: unknown }).command;
    } catch {
      return null;
    }
    if (typeof command !== "string" || isReadOnlyCommand(command)) return null;
    return "Plan mode is on: Shell runs only commands that read (ls, cat, grep, git status/log/diff, … without redirection or chaining).";
  }
  return `Plan mode is on: ${name} is refused (only tools that read work).`;
}
