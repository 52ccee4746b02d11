/**
 * Renders a turn's events in the terminal: Markdown text as it streams,
 * thinking dimmed (or hidden), tool calls and results as one line each,
 * retries, compactions, D-Mail reverts, a spinner while the model is
 * waited for, and the turn's outcome. Approval requests are handed to the
 * caller's prompt. The interactive mode and the demo both use it.
 *
 * This is where text from the model, tools and servers enters the terminal:
 * every such string passes through `visibleControls` here (or in the
 * one-line summaries it calls), so none of it can move the cursor, erase a
 * line or reorder what is shown.
 */
import { SendDMail, type ApprovalKind, type ApprovalRequestInfo, type SoulEvent, type SoulEventOf, type SoulEventType } from "@kosong/soul";
import stringWidth from "string-width";
import { ChildBlock, type ChildCost } from "./child-block.js";
import { count } from "./count.js";
import { cutToWidth } from "./cut-to-width.js";
import { MarkdownStream } from "./markdown-stream.js";
import { revertedFilesLine } from "./reverted-files.js";
import { ScreenWriter } from "./screen-writer.js";
import { formatTokens } from "./status-line.js";
import type { Style } from "./terminal-style.js";
import { toolCallLabel, toolResultBrief } from "./tool-call-summary.js";
import { toolOutputPreview, toolOutputText } from "./tool-output.js";
import { visibleControls } from "./visible-controls.js";

/** An approval request as the renderer hands it to the prompt, its texts made safe to show. */
export interface ApprovalQuestion {
  id: string;
  /** The tool call asking (as the soul sent it). */
  toolCallId: string;
  sender: string;
  action: string;
  description: string;
  /** What approving for the session covers, in words (absent: every request of `action`). */
  scope?: string;
  /** Only this request can be approved: no "for the session" (or "for the project") choice. */
  once?: boolean;
}

/** The user's answer to an approval request. */
export interface ApprovalReply {
  kind: ApprovalKind;
  feedback?: string;
}

/** An `ApprovalRequest` as the prompt asks it: its texts made safe to show. */
export function approvalQuestion(payload: ApprovalRequestInfo): ApprovalQuestion {
  const { id, sender, action, description, scope } = payload;
  const oneLine = { oneLine: true };
  return {
    id,
    toolCallId: payload.tool_call_id,
    sender: visibleControls(sender, oneLine),
    action: visibleControls(action, oneLine),
    description: visibleControls(description),
    ...(scope === undefined ? {} : { scope: visibleControls(scope, oneLine) }),
    ...(payload.once === true ? { once: true } : {}),
  };
}

/** Options of {@link TurnRenderer}. */
export interface TurnRendererOptions {
  out: NodeJS.WritableStream;
  style: Style;
  /** Terminal size, for Markdown and its live preview (read each time: getters follow a resize). */
  columns: number;
  rows: number;
  /** Show think parts (dimmed) instead of a one-line note. */
  showThinking: () => boolean;
  /** Animate a spinner while waiting (only on a TTY). */
  spinner: boolean;
  /** Asks the user about an approval request. */
  askApproval: (question: ApprovalQuestion) => Promise<ApprovalReply>;
  /** Sends the answer to the soul. */
  respond: (id: string, reply: ApprovalReply) => void;
  /** The context's token count now (shown when a D-Mail or a rewrite shrinks it). */
  contextTokens: () => number;
  /** Receives each tool's label and whole output, safe to show (for a key that shows it in full); a child's is its steps and answer. */
  onToolOutput?: (label: string, output: string) => void;
  /** Show a child's (`Agent`) steps as lines under its call as they finish, not only its latest (default false: collapsed; {@link TurnRenderer.toggleChildren} switches). */
  expandChildren?: boolean;
  /** Prices a child's tokens, for its block's cost (absent: no cost shown). */
  childCost?: ChildCost;
}

interface OpenCall {
  name: string;
  args: string;
  /** When the call was complete (it runs from then, or waits for approval). */
  started: number;
}

type EventPayload<K extends SoulEventType> = SoulEventOf<K>["payload"];

/** A tool running this long shows its elapsed time. */
const slowToolSeconds = 2;

/** Renders the events of one operation (a turn or a compaction). */
export class TurnRenderer {
  readonly #o: TurnRendererOptions;
  readonly #markdown: MarkdownStream;
  readonly #calls = new Map<string, OpenCall>();
  readonly #screen: ScreenWriter;
  /** The blocks of the children running, by their parent's call id. */
  readonly #children = new Map<string, ChildBlock>();
  #expandChildren: boolean;
  #spinnerText: string | null = null;
  /** Work talking to the user runs (see {@link aside}): no spinner meanwhile. */
  #asides = 0;
  #ticker: ReturnType<typeof setInterval> | null = null;
  #thinking: "none" | "shown" | "noted" = "none";
  #lastTokens = 0;
  /** The strategy of the compaction running (its `CompactionBegin`), to name in its report. */
  #compactionStrategy: string | null = null;
  /** A `SendDMail` result held back until the step shows whether the D-Mail was delivered (a `Reverted` event). */
  #dmailResult: { label: string; line: string } | null = null;

  constructor(options: TurnRendererOptions) {
    this.#o = options;
    this.#expandChildren = options.expandChildren ?? false;
    this.#lastTokens = options.contextTokens();
    this.#screen = ScreenWriter.for(options.out);
    // The terminal's size as it is now: after a resize, the preview is erased and blocks rendered at the new size.
    this.#markdown = new MarkdownStream({
      write: (text) => this.#write(text),
      style: options.style,
      get columns() {
        return options.columns;
      },
      get rows() {
        return options.rows;
      },
    });
  }

  /** Renders one event (awaits an approval answer when it is an `ApprovalRequest`). */
  async render(event: SoulEvent): Promise<void> {
    if (this.#dmailResult !== null && event.type !== "Reverted" && event.type !== "ToolResult" && event.type !== "StatusUpdate") this.#flushDMailResult();
    switch (event.type) {
      case "StepBegin":
        return this.#startSpinner("thinking");
      case "TextPart":
        return this.#text(event.payload.text);
      case "ThinkPart":
        return this.#think(event.payload.think);
      case "ToolCallBegin":
        return this.#flushText();
      case "ToolCall":
        // The complete call (final arguments), before it runs.
        this.#calls.set(event.payload.id, { name: event.payload.function.name, args: event.payload.function.arguments ?? "", started: Date.now() });
        return this.#showRunning();
      case "ToolResult":
        return this.#toolResult(event.payload);
      case "ApprovalRequest":
        return this.#approval(event.payload);
      case "StepRetry":
        return this.#retry(event.payload);
      case "CompactionBegin":
        await this.#flushText();
        this.#compactionStrategy = event.payload.strategy;
        return this.#startSpinner(`compacting (${event.payload.strategy}, ${event.payload.reason})`);
      case "CompactionEnd":
        return this.#compactionEnd(event.payload);
      case "Reverted":
        return this.#reverted(event.payload);
      case "Warning":
        return this.#warning(event.payload);
      case "StatusUpdate":
        this.#lastTokens = event.payload.context_tokens;
        return;
      case "SubagentEvent":
        return this.#child(event.payload);
      case "SteerInput":
        return this.#write(`${this.#o.style.dim("» steered:")} ${typeof event.payload.user_input === "string" ? visibleControls(event.payload.user_input) : "(content)"}\n`);
      case "StepInterrupted":
        this.#calls.clear();
        this.#children.clear();
        this.#stopSpinner();
        await this.#flushText();
        if (event.payload.reason === "aborted") this.#write(`${this.#o.style.yellow("■ interrupted")}\n`);
        return;
      case "TurnEnd":
        return this.#turnEnd(event.payload);
      default:
        return;
    }
  }

  async #text(text: string): Promise<void> {
    await this.#endThinking();
    this.#stopSpinner();
    await this.#markdown.push(visibleControls(text));
  }

  #think(think: string): void {
    const s = this.#o.style;
    this.#stopSpinner();
    if (this.#o.showThinking()) {
      if (this.#thinking !== "shown") this.#write(s.dim(s.italic("thinking: ")));
      this.#thinking = "shown";
      this.#write(s.dim(s.italic(visibleControls(think))));
    } else if (this.#thinking === "none") {
      this.#thinking = "noted";
      this.#write(`${s.dim("(thinking… /thinking shows it)")}\n`);
    }
  }

  #toolResult(payload: EventPayload<"ToolResult">): void {
    const s = this.#o.style;
    this.#stopSpinner();
    const call = this.#calls.get(payload.tool_call_id);
    this.#calls.delete(payload.tool_call_id);
    const label = call ? toolCallLabel(call.name, call.args) : visibleControls(payload.tool_call_id, { oneLine: true });
    const result = payload.return_value;
    const mark = result.is_error ? s.red("✗") : s.green("✓");
    const brief = toolResultBrief(result);
    const seconds = call ? (Date.now() - call.started) / 1000 : 0;
    const took = seconds >= slowToolSeconds ? s.dim(` (${seconds.toFixed(0)} s)`) : "";
    const output = toolOutputText(result);
    const child = this.#children.get(payload.tool_call_id);
    if (child !== undefined) {
      this.#children.delete(payload.tool_call_id);
      this.#o.onToolOutput?.(label, child.expanded(result, output));
      this.#write(`${child.header(label, result, took)}\n${this.#expandChildren ? "" : `${child.latestLine()}\n`}`);
      return this.#showRunning();
    }
    // The brief gets what the row leaves (none when a few columns are not left: the preview shows the output), so the line never wraps.
    const room = this.#o.columns - 1 - stringWidth(`${mark} ${label} → ${took}`);
    const fitted = brief && room >= 4 ? cutToWidth(brief, room) : "";
    // No preview that only repeats the brief shown whole (a one-line error, a one-line answer).
    const repeats = !output.includes("\n") && fitted === brief && toolResultBrief(result, output.length + 1) === output;
    const shown = call?.name === SendDMail.name || repeats ? [] : toolOutputPreview(output, call?.name === "Shell", s, this.#o.columns);
    const line = `${mark} ${s.bold(label)}${fitted ? s.dim(` → ${fitted}`) : ""}${took}\n${shown.map((l) => `${l}\n`).join("")}`;
    this.#o.onToolOutput?.(label, output);
    // The model never reads a delivered D-Mail's result: whether it was delivered shows in the Reverted event that follows.
    if (call?.name === SendDMail.name) this.#dmailResult = { label, line };
    else this.#write(line);
    this.#showRunning();
  }

  async #approval(payload: EventPayload<"ApprovalRequest">): Promise<void> {
    await this.#flushText();
    this.#stopSpinner();
    const reply = await this.#o.askApproval(approvalQuestion(payload));
    this.#o.respond(payload.id, reply);
    // The tool runs from now: its time does not count the wait for the answer.
    const call = this.#calls.get(payload.tool_call_id);
    if (call) call.started = Date.now();
    this.#showRunning();
  }

  async #retry(payload: EventPayload<"StepRetry">): Promise<void> {
    const s = this.#o.style;
    await this.#flushText();
    this.#stopSpinner();
    this.#write(`${s.yellow("↻")} ${s.dim(`retrying in ${(payload.delay_ms / 1000).toFixed(1)} s (attempt ${payload.attempt}): ${visibleControls(payload.error)}`)}\n`);
  }

  #compactionEnd(payload: EventPayload<"CompactionEnd">): void {
    const s = this.#o.style;
    this.#stopSpinner();
    const d = payload.details;
    const what = d ? `, kept ${d.kept}, dropped ${d.dropped}${d.stubs ? `, ${d.stubs} stubs` : ""}${d.filesRecovered.length ? `, ${d.filesRecovered.length} files recovered` : ""}` : "";
    // Said as it is: a compaction that removed nothing is not reported as one, and the strategy's notes (a summary rejected, a fallback, a missed budget) are shown.
    const nothing = d !== null && d.dropped === 0 && d.stubs === 0 && payload.tokens_after >= payload.tokens_before;
    const grew = !nothing && payload.tokens_after > payload.tokens_before;
    const tokens = `${formatTokens(payload.tokens_before)} → ${formatTokens(payload.tokens_after)} tokens${what}`;
    // A compaction whose output is larger than what it replaced (a summary longer than a short conversation) is said so, not called a compaction.
    // Nothing done and nothing noted: the strategy keeps the whole conversation as it is (it fits what the strategy keeps verbatim), said so.
    const why = nothing && d.notes.length === 0 && this.#compactionStrategy !== null ? `: all ${count(d.kept, "message")} ${d.kept === 1 ? "is" : "are"} within what ${visibleControls(this.#compactionStrategy, { oneLine: true })} keeps as ${d.kept === 1 ? "it is" : "they are"}` : "";
    const result = nothing ? `nothing compacted (${formatTokens(payload.tokens_before)} tokens)${why}` : grew ? s.yellow(`the context grew: ${tokens}`) : `compacted: ${tokens}`;
    // No model summary made it (rejected, or the model failed): the output is the fallback's, and said so first.
    const head = d?.fallback ? `${s.yellow(`summary ${d.rejectedSummaries?.length ? "rejected" : "not made"}, fell back to ${visibleControls(d.fallback, { oneLine: true })}`)}: ${result}` : result;
    const notes = [...(d?.notes ?? []), ...(d?.withinBudget === false ? ["over the strategy's budget: the smallest output it could make"] : [])];
    this.#write(`${s.cyan("⇣")} ${head}\n${notes.map((note) => `  ${s.yellow("!")} ${s.dim(visibleControls(note))}\n`).join("")}`);
  }

  async #reverted(payload: EventPayload<"Reverted">): Promise<void> {
    const s = this.#o.style;
    await this.#flushText();
    const dmail = payload.reason === "dmail";
    if (this.#dmailResult !== null && dmail) this.#write(`${s.magenta("✉")} ${s.bold(this.#dmailResult.label)}\n`);
    else this.#flushDMailResult();
    this.#dmailResult = null;
    const target = payload.checkpoint_id === null ? "the start" : `checkpoint ${payload.checkpoint_id}`;
    const tokens = dmail ? s.dim(` · context ${formatTokens(this.#lastTokens)} → ${formatTokens(this.#o.contextTokens())} tokens`) : "";
    this.#write(`${s.magenta("⟲")} ${dmail ? "D-Mail" : "rewrite"}: back to ${target}${tokens}\n`);
    if (payload.files) this.#write(revertedFilesLine(payload.files, s));
  }

  /** A hook's notice (the soul's other warnings are the modes' to show). */
  async #warning(payload: EventPayload<"Warning">): Promise<void> {
    if (!payload.code.startsWith("hook")) return;
    await this.#flushText();
    this.#write(`${this.#o.style.yellow("!")} ${this.#o.style.dim(visibleControls(payload.message, { oneLine: true }))}\n`);
  }

  async #turnEnd(payload: EventPayload<"TurnEnd">): Promise<void> {
    const s = this.#o.style;
    this.#calls.clear();
    this.#children.clear();
    this.#stopSpinner();
    await this.#flushText();
    if (payload.stop_reason === "error") this.#write(`${s.red("error:")} ${visibleControls(payload.error ?? "the turn failed")}\n`);
    else if (payload.stop_reason === "tool_rejected") this.#write(`${s.yellow("rejected:")} the turn stopped; tell the agent how to go on\n`);
    else if (payload.stop_reason === "max_steps") this.#write(`${s.yellow("stopped:")} the step limit was reached\n`);
  }

  /**
   * A child's event, inside its parent's `Agent` call: taken into the
   * call's block (see `ChildBlock`), whose live line the running line shows;
   * expanded, each tool call of the child is written under the call as it
   * finishes (` │ coder: ✓ ReadFile(app.toml)`). Its whole transcript is
   * `/agents <id>`'s.
   */
  #child(payload: EventPayload<"SubagentEvent">): void {
    if (!this.#calls.has(payload.parent_tool_call_id)) return;
    let block = this.#children.get(payload.parent_tool_call_id);
    if (block === undefined) {
      block = new ChildBlock(payload.agent_id, payload.subagent_type, this.#o.style);
      this.#children.set(payload.parent_tool_call_id, block);
    }
    const line = block.observe(payload.event, this.#o.childCost);
    if (line !== null && this.#expandChildren) this.#write(`${block.stepLine(line)}\n`);
    this.#showRunning();
  }

  /**
   * Expands the children's blocks (their steps written under their calls
   * as they finish, and the steps so far of those running now) or collapses
   * them (only the latest step); returns whether they are expanded now.
   */
  toggleChildren(): boolean {
    this.#expandChildren = !this.#expandChildren;
    if (this.#expandChildren) {
      for (const [id, block] of this.#children) {
        const call = this.#calls.get(id);
        if (call) this.#write(`${block.soFar(toolCallLabel(call.name, call.args)).join("\n")}\n`);
      }
      this.#showRunning();
    }
    return this.#expandChildren;
  }

  /**
   * Writes a line of the CLI's own (e.g. a queued input) amid the turn's
   * output without breaking the streamed text's live preview; a spinner
   * that was running goes on under it. `line` must already be safe to show.
   */
  note(line: string): void {
    const spinning = this.#spinnerText;
    this.#stopSpinner();
    this.#markdown.interject(`${line}\n`);
    if (this.#calls.size > 0) this.#showRunning();
    else if (spinning !== null) this.#startSpinner(spinning);
  }

  /**
   * Runs `work` that talks to the user (a tool's questions) with the
   * spinner stopped and pending text written; the spinner of the tools
   * still running comes back after.
   */
  async aside<T>(work: () => Promise<T>): Promise<T> {
    this.#asides++;
    this.#stopSpinner();
    await this.#flushText();
    try {
      return await work();
    } finally {
      this.#asides--;
      this.#showRunning();
    }
  }

  /** Stops the spinner and writes pending text (after the last event, or before other output). */
  async finish(): Promise<void> {
    this.#stopSpinner();
    this.#flushDMailResult();
    await this.#flushText();
  }

  /** Writes a held `SendDMail` result as it is: no revert followed, so the D-Mail was not delivered. */
  #flushDMailResult(): void {
    if (this.#dmailResult !== null) this.#write(this.#dmailResult.line);
    this.#dmailResult = null;
  }

  async #flushText(): Promise<void> {
    await this.#endThinking();
    await this.#markdown.end();
  }

  async #endThinking(): Promise<void> {
    if (this.#thinking === "shown") this.#write("\n\n");
    this.#thinking = "none";
  }

  /** The spinner for the tools still running, with the time the oldest has taken once it is slow. */
  #showRunning(): void {
    if (this.#calls.size === 0 || !this.#o.spinner || this.#asides > 0) return;
    const calls = [...this.#calls.entries()];
    const labels = calls.map(([id, call]) => {
      const label = toolCallLabel(call.name, call.args, 40);
      return this.#children.get(id)?.live(label) ?? label;
    });
    const text = () => {
      const seconds = (Date.now() - Math.min(...calls.map(([, call]) => call.started))) / 1000;
      return fitWidth(`running ${labels.join(", ")}${seconds >= slowToolSeconds ? ` · ${seconds.toFixed(0)} s` : ""}`, this.#o.columns - 3);
    };
    this.#startSpinner(text());
    this.#ticker = setInterval(() => this.#screen.setSpinnerText(this.#o.style.dim(text())), 1000);
  }

  #startSpinner(text: string): void {
    if (!this.#o.spinner || this.#asides > 0) return;
    this.#stopSpinner();
    this.#spinnerText = text;
    this.#screen.startSpinner(this.#o.style.dim(text), this.#o.style.cyan);
  }

  #stopSpinner(): void {
    if (this.#spinnerText !== null) this.#screen.stopSpinner();
    this.#spinnerText = null;
    if (this.#ticker !== null) clearInterval(this.#ticker);
    this.#ticker = null;
  }

  #write(text: string): void {
    this.#stopSpinner();
    this.#screen.write(text);
  }
}

/** `text` cut (with `…`) to at most `width` columns: a running line that wrapped could not be drawn again in place. */
function fitWidth(text: string, width: number): string {
  if (stringWidth(text) <= width) return text;
  let cut = text;
  while (cut && stringWidth(cut) > width - 1) cut = cut.slice(0, -1);
  return `${cut}…`;
}
