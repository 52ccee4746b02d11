/**
 * A child soul run from a tool: its own conversation, system prompt, tools
 * and model, under the parent's abort signal; its events nested under the
 * parent's tool call, its approvals asked through the parent's channel, its
 * tokens counted in the parent's turn, its file writes journaled in the
 * parent's file journal (so the parent's time travel undoes them).
 */
import { randomUUID } from "node:crypto";
import { extractText, type ChatProvider, type ToolContext } from "@kosong/core";
import { Approval } from "../approval/approval.js";
import type { Compaction } from "../compaction/index.js";
import type { Context } from "../context/index.js";
import type { SoulEvent, UserInput } from "../events/events.js";
import type { SoulConfigInput } from "../loop/config.js";
import type { AgentSpec } from "../loop/runtime.js";
import { Soul } from "../loop/soul.js";
import type { TurnResult } from "../loop/turn.js";
import { SubagentOutsideSoulError } from "./subagent-outside-soul-error.js";

/** What {@link runSubagent} runs. */
export interface SubagentOptions {
  /** The child: its name (approval requests say it), system prompt and tools. */
  agent: AgentSpec;
  /** The child's model. */
  provider: ChatProvider;
  /**
   * The child's own conversation (a file, memory, PostgreSQL: any
   * `Context`), without a file journal of its own. Restore it first when it
   * holds an earlier conversation (a resumed child), as for any soul: the
   * child goes on with it.
   */
  context: Context;
  /** The id the parent knows the child by, to resume it (default: a random UUID). */
  agentId?: string;
  /** The child's kind, as `SubagentEvent.subagent_type` says it (default: `agent.name`). */
  subagentType?: string;
  /** The child's loop settings. */
  config?: SoulConfigInput;
  /** The child's compaction (see `SoulOptions.compaction`; default: the soul's default). */
  compaction?: Compaction | null;
  /** Sees each event of the child (as it is nested into the parent's turn). */
  onEvent?: (event: SoulEvent) => void;
}

/** What a child's turn came to. */
export interface SubagentResult {
  agentId: string;
  subagentType: string;
  /** The child's final answer: the text of its last assistant message ("" without one). */
  text: string;
  /** The child's turn: stop reason, steps, usage, error. */
  turn: TurnResult;
  /** The label of the child's turn checkpoint, linking it to the parent: `<parent session id>/<parent tool call id>`. */
  link: string;
}

/**
 * Runs one turn of a child soul on `input`, from inside the tool call
 * `parent` (the tool's `ToolContext`), and resolves when it ended: never
 * rejects for the child's failure (see `result.turn.stopReason`), only when
 * `parent` is not the context of a tool running in a soul.
 *
 * The child's turn checkpoint is labelled `<parent session>/<parent call>`
 * (its link, kept in its own log). Its events reach the parent's turn as
 * `SubagentEvent`s under the parent's call; its tokens are added to the
 * parent turn's usage; its approval requests go to the parent's approval
 * channel, `sender` being `<child name>/<tool>`; the parent's signal aborts
 * it; its tools declare writes to the parent's file journal.
 *
 * ```ts
 * const research = defineTool({
 *   name: "Research", description: "Researches a question.", parameters: z.object({ question: z.string() }),
 *   execute: async ({ question }, context) =>
 *     subagentToolResult(await runSubagent(context, question, { agent: researcher, provider, context: new Context(file) })),
 * });
 * ```
 * @throws SubagentOutsideSoulError when `parent` has no running turn (the tool was called outside a soul).
 */
export async function runSubagent(parent: ToolContext, input: UserInput, options: SubagentOptions): Promise<SubagentResult> {
  const { turn, session } = parent;
  if (turn === undefined || session === undefined) throw new SubagentOutsideSoulError();
  const agentId = options.agentId ?? randomUUID();
  const subagentType = options.subagentType ?? options.agent.name;
  const { context } = options;
  const approval = new Approval({
    forward: (request, signal) => turn.requestApproval({ ...request, sender: `${options.agent.name}/${request.sender}` }, signal),
  });
  const child = new Soul({
    agent: options.agent,
    provider: options.provider,
    context,
    approval,
    ...(options.config && { config: options.config }),
    ...(options.compaction !== undefined && { compaction: options.compaction }),
    session: { id: agentId, ...(session.workDir !== null && { workDir: session.workDir }), fileJournal: session.fileJournal },
  });
  const link = `${session.id}/${parent.toolCallId}`;
  let result: TurnResult;
  try {
    const running = child.run(input, { signal: parent.signal, label: link });
    for await (const event of running) {
      options.onEvent?.(event);
      turn.emitSubagentEvent({ parent_tool_call_id: parent.toolCallId, agent_id: agentId, subagent_type: subagentType, event });
    }
    result = await running.result;
  } finally {
    // The context is free for the next call (a resume) whatever happened; the turn has ended by now.
    if (!child.running) child.release();
  }
  turn.addUsage(result.usage);
  const last = context.history.findLast((m) => m.role === "assistant");
  return { agentId, subagentType, text: last === undefined ? "" : extractText(last), turn: result, link };
}
