/**
 * The tools as a turn's steps hand them to core's `step`: the agent's
 * toolset with the D-Mail description that matches the context, the tool
 * hooks, approval and time limits around each call, and the `context.turn`
 * a tool sees. None of it changes within a turn, so it is built once per
 * turn, not at every step.
 */
import type { TokenUsage, ToolContextExtensions, Toolset } from "@kosong/core";
import { approvingToolset } from "../approval/approving-toolset.js";
import { describeDMailFiles } from "../dmail/send-dmail-description.js";
import { SEND_DMAIL_NAME } from "../dmail/send-dmail.js";
import { hookedToolset } from "../hooks/hooked-toolset.js";
import { toolTimeoutFor } from "./config.js";
import type { Emit, SoulRuntime } from "./runtime.js";
import type { ToolTurn } from "./tool-turn.js";

/** What every step of a turn passes to `step()` for its tool calls. */
export interface TurnTools {
  /** The toolset the model is shown and its calls go to. */
  readonly toolset: Toolset;
  /** The extensions of each call's `context`: the session and the turn. */
  readonly toolContext: Partial<ToolContextExtensions>;
  /** The ids of the turn's calls cancelled at their approval prompt, before they ran. */
  readonly notRun: ReadonlySet<string>;
}

/** The tools of a turn of `rt` whose events go to `emit`; `addUsage` counts tokens a tool spent in the turn's usage. */
export function turnTools(rt: SoulRuntime, emit: Emit, addUsage: (spent: TokenUsage) => void): TurnTools {
  const shown = describeDMailFiles(rt.agent.toolset, SEND_DMAIL_NAME, rt.context.fileJournal !== null);
  const notRun = new Set<string>();
  const toolset = approvingToolset(hookedToolset(shown, rt.hooks, emit), rt.approval, (name) => toolTimeoutFor(rt.config, name), notRun);
  const turn: ToolTurn = {
    emitSubagentEvent: (payload) => emit({ type: "SubagentEvent", payload }),
    addUsage,
    requestApproval: (request, signal) => rt.approval.request(request, signal),
  };
  return { toolset, toolContext: { session: rt.session, turn }, notRun };
}
