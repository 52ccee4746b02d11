/**
 * A child agent (an `Agent` call) as one block of the terminal: while it
 * runs, one live line (its kind, status, steps, tool calls, cost and latest
 * step); when it ends, a header line with the same figures and its latest
 * step (collapsed), or every step (expanded). The block's whole text (each
 * step, then the child's answer) is what Ctrl-O shows. Every string from the
 * child is made safe to show here.
 */
import type { TokenUsage, ToolReturnValue } from "@kosong/core";
import type { SoulEvent } from "@kosong/soul";
import { TOOL_INTERRUPTED_MESSAGE } from "@kosong/soul/conversation";
import { formatCost } from "../pricing/usage-cost.js";
import { count } from "./count.js";
import type { Style } from "./terminal-style.js";
import { toolCallLabel, toolResultBrief } from "./tool-call-summary.js";
import { oneLine, visibleControls } from "./visible-controls.js";

/** Where a child stands, as its block says it. */
export type ChildStatus = "running" | "done" | "failed" | "aborted";

/** Prices a child's usage (null when its model's price is unknown). */
export type ChildCost = (agentId: string, usage: TokenUsage) => number | null;

/** The block of one child, fed the child's events. */
export class ChildBlock {
  readonly #style: Style;
  readonly #agentId: string;
  readonly #kind: string;
  #steps = 0;
  #toolCalls = 0;
  #cost: number | null = null;
  /** The latest step without colours (the live line is dimmed whole). */
  #latestPlain = "";
  readonly #labels = new Map<string, string>();
  /** Each finished tool call of the child, as a line (mark, call, brief). */
  readonly #lines: string[] = [];

  constructor(agentId: string, subagentType: string, style: Style) {
    this.#agentId = agentId;
    this.#kind = visibleControls(subagentType, { oneLine: true });
    this.#style = style;
  }

  /** Takes in one of the child's events; returns the line of a tool call it finished (null for other events). */
  observe(event: SoulEvent, cost?: ChildCost): string | null {
    const s = this.#style;
    switch (event.type) {
      case "StepBegin":
        this.#steps = event.payload.n;
        if (this.#toolCalls === 0) this.#latestPlain = `step ${event.payload.n}: thinking`;
        return null;
      case "ToolCall": {
        const label = toolCallLabel(event.payload.function.name, event.payload.function.arguments, 50);
        this.#labels.set(event.payload.id, label);
        this.#toolCalls++;
        this.#latestPlain = `… ${label}`;
        return null;
      }
      case "ToolResult": {
        const label = this.#labels.get(event.payload.tool_call_id) ?? visibleControls(event.payload.tool_call_id, { oneLine: true });
        const result = event.payload.return_value;
        const brief = toolResultBrief(result);
        const mark = result.is_error ? "✗" : "✓";
        const line = `${result.is_error ? s.red(mark) : s.green(mark)} ${label}${brief ? s.dim(` → ${brief}`) : ""}`;
        this.#lines.push(line);
        this.#latestPlain = `${mark} ${label}`;
        return line;
      }
      case "StatusUpdate": {
        const usage = event.payload.token_usage;
        const price = usage && cost ? cost(this.#agentId, usage) : null;
        if (price !== null) this.#cost = (this.#cost ?? 0) + price;
        return null;
      }
      default:
        return null;
    }
  }

  /** The live line while it runs, without colours: `<label> · coder running · step 2 · 1 tool call · $0.0012 · ✓ ReadFile(a)`. */
  live(label: string): string {
    return `${label} · ${this.#figures("running")}${this.#latestPlain ? ` · ${this.#latestPlain}` : ""}`;
  }

  /** The block so far, expanded (when Ctrl-O expands it while it runs): its live line, then each finished step. */
  soFar(label: string): string[] {
    return [`${this.#style.cyan("▾")} ${this.live(label)}`, ...this.#lines.map((line) => this.stepLine(line))];
  }

  /** The header line once it ended with `result` (its parent's tool result); `took` is the elapsed-time note. */
  header(label: string, result: ToolReturnValue, took: string): string {
    const s = this.#style;
    const status = statusOf(result);
    const mark = status === "done" ? s.green("✓") : status === "aborted" ? s.yellow("■") : s.red("✗");
    // Why it failed, in a line (the whole message is in what Ctrl-O shows and in the model's result).
    const why = status === "failed" && result.message ? `\n  ${s.dim("│")} ${s.red(oneLine(result.message, 100))}` : "";
    return `${mark} ${s.bold(label)} ${s.dim(`· ${this.#figures(status)}`)}${took}${why}`;
  }

  /** The collapsed block's line under the header: its latest step, and the key that shows the rest. */
  latestLine(): string {
    const s = this.#style;
    const more = this.#lines.length > 1 ? ` (Ctrl-O shows all ${this.#lines.length})` : " (Ctrl-O shows its answer)";
    return `  ${s.dim("└")} ${this.#lines.at(-1) ?? s.dim("no tool calls")}${s.dim(more)}`;
  }

  /** A finished step's line as the expanded block shows it, under the call. */
  stepLine(line: string): string {
    return `  ${this.#style.dim("│")} ${this.#style.dim(`${this.#kind}:`)} ${line}`;
  }

  /** The whole block, expanded (what Ctrl-O shows): the figures, each step, then the child's answer `output`. */
  expanded(result: ToolReturnValue, output: string): string {
    const s = this.#style;
    const steps = this.#lines.length > 0 ? this.#lines.map((line, i) => `${s.dim(`${i + 1}.`)} ${line}`) : [s.dim("(no tool calls)")];
    return [`${this.#agentId} · ${this.#figures(statusOf(result))}`, ...steps, s.dim("answer:"), output || s.dim("(none)")].join("\n");
  }

  #figures(status: ChildStatus): string {
    const cost = this.#cost === null ? "" : ` · ${formatCost(this.#cost)}`;
    return `${this.#kind} ${status} · ${count(this.#steps, "step")} · ${count(this.#toolCalls, "tool call")}${cost}`;
  }
}

/** The status a child's result says: done, aborted (its own stop, or the call interrupted by the user's Ctrl-C), or failed (an error, a rejection, the step limit). */
function statusOf(result: ToolReturnValue): ChildStatus {
  if (!result.is_error) return "done";
  return result.extras?.stop_reason === "aborted" || result.message === TOOL_INTERRUPTED_MESSAGE ? "aborted" : "failed";
}
