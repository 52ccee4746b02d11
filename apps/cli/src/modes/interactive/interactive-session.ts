/**
 * The interactive mode's state and its operations: reading prompts, running
 * turns, rewrites and compactions with their events rendered, approval
 * prompts, and the status line. Slash commands act through it.
 */
import type { TokenUsage } from "@kosong/core";
import type { ApprovalRequestInfo, SoulEvent, SoulStream, ToolApproval } from "@kosong/soul";
import type { AgentSession } from "../../agent/agent-session.js";
import { type ApprovalQuestion, type ApprovalReply, approvalQuestion, TurnRenderer } from "../../render/turn-renderer.js";
import { approvalLines } from "../../render/approval-lines.js";
import { addUsage, footerLine, noTokens, type SessionTokens, type StatusInfo, statusLine } from "../../render/status-line.js";
import { priceOf } from "../../pricing/model-prices.js";
import { usageCost } from "../../pricing/usage-cost.js";
import { ScreenWriter } from "../../render/screen-writer.js";
import { toolOutputText } from "../../render/tool-output.js";
import type { Style } from "../../render/terminal-style.js";
import { oneLine, visibleControls } from "../../render/visible-controls.js";
import { recordFirstPromptMeanwhile } from "../../sessions/session-store.js";
import { reportedWindow } from "../../agent/reported-window.js";
import type { QuestionAnswers, QuestionItem } from "../../questions/ask-user-question.js";
import { planModeNote } from "../../plan/plan-mode.js";
import { sameTodoList, type TodoItem, todoLines, todoListOf } from "../../todo/todo-list.js";
import { attachMentions, ImageInputError, withNoticesFirst, withText } from "./file-mentions.js";
import { ruleForApproval } from "../../permissions/permission-rule.js";
import { fitWords } from "../../render/fit-words.js";
import { editPlan } from "./plan-editor.js";
import { QueuedLines } from "./queued-lines.js";
import type { LineInput } from "./terminal-input.js";
import { TurnKeyWatch } from "./turn-key-watch.js";

/** The approval of a command the user typed (`!cmd`): given already. */
const userApproved: ToolApproval = { request: () => Promise.resolve({ approved: true }) };

/** Tool outputs Ctrl-O can go back through. */
const keptToolOutputs = 100;

/** The prompt shown for input. */
export const promptText = "› ";

/** What an operation ended with. */
export type OperationEnd = "done" | "aborted";

/** One interactive session. */
export class InteractiveSession {
  /** Show think parts (toggled by `/thinking`). */
  showThinking = false;
  /** Show every step of a child agent under its call, not only the latest (Ctrl-O during a turn switches it). */
  expandChildren = false;
  /** Set by `/exit` and {@link stop}. */
  exitRequested = false;
  /** Lines entered during the last operation and not handed to the soul: the loop sends them next. */
  readonly queuedInput: string[] = [];
  /** Tokens used since the session started here, and their cost where the model's price is known. */
  tokens: SessionTokens = noTokens;
  /** The tools' labels and whole outputs (safe to show), oldest first, at most {@link keptToolOutputs}: Ctrl-O shows them. */
  readonly toolOutputs: { label: string; output: string }[] = [];
  #running: AbortController | null = null;
  /** Set while an operation runs: reads from the user with the turn's key watching paused (approvals, questions). */
  #paused: (<T>(read: () => Promise<T>) => Promise<T>) | null = null;
  /** The todo list last shown, to show it again only when it changed. */
  #shownTodo: TodoItem[] | null = null;
  /** Approval requests of background agents made while no turn ran, to ask at the prompt (oldest first). */
  readonly #waitingApprovals: ApprovalRequestInfo[] = [];
  /** Ends the prompt being read so that a waiting approval is asked (null when no prompt is read). */
  #endPrompt: (() => void) | null = null;

  constructor(
    readonly agent: AgentSession,
    readonly input: LineInput,
    readonly out: NodeJS.WriteStream,
    readonly style: Style,
  ) {
    const questioner = { ask: (questions: readonly QuestionItem[], signal: AbortSignal) => this.askQuestions(questions, signal) };
    agent.questioner = () => questioner;
    // A background agent asking while no turn runs: asked at the prompt (a turn's requests are its renderer's).
    agent.soul.approval.subscribe((event) => {
      if (event.type !== "ApprovalRequest" || this.agent.soul.running) return;
      this.#waitingApprovals.push(event.payload);
      this.#endPrompt?.();
    });
    agent.subagents.answersBetweenTurns = true;
  }

  /**
   * For the prompt being read (`ReadLineOptions.preempt`): ends it when a
   * background agent asks for approval (at once when one waits), so that
   * {@link askWaitingApprovals} asks it.
   */
  preemptPrompt(end: () => void): () => void {
    this.#endPrompt = end;
    if (this.#waitingApprovals.length > 0) end();
    return () => {
      if (this.#endPrompt === end) this.#endPrompt = null;
    };
  }

  /** Asks each approval a background agent is waiting for (made while no turn ran), as a turn's are asked. */
  async askWaitingApprovals(): Promise<void> {
    const { approval } = this.agent.soul;
    for (let info = this.#waitingApprovals.shift(); info !== undefined; info = this.#waitingApprovals.shift()) {
      const id = info.id;
      // Given up meanwhile (the agent was aborted, or yolo answered it).
      if (!approval.pending().some((p) => p.id === id)) continue;
      const reply = await this.askApproval(approvalQuestion(info), new AbortController());
      try {
        approval.respond(id, reply.kind, reply.feedback);
      } catch {
        // Settled while the user answered.
      }
    }
  }

  /**
   * The picker of AskUserQuestion: each question with its options
   * numbered; the user answers with a number (numbers separated by commas
   * when several may be chosen) or types an answer of their own. Ctrl-C
   * dismisses the questions (null).
   */
  async askQuestions(questions: readonly QuestionItem[], signal: AbortSignal): Promise<QuestionAnswers | null> {
    const read = async (): Promise<QuestionAnswers | null> => {
      const s = this.style;
      const shown = (text: string) => visibleControls(text, { oneLine: true });
      const answers: QuestionAnswers = {};
      for (const q of questions) {
        if (signal.aborted) return null;
        this.print(`${s.cyan("?")} ${q.header ? s.dim(`[${shown(q.header)}] `) : ""}${s.bold(shown(q.question))}`);
        q.options.forEach((o, i) => this.print(`  ${i + 1}. ${shown(o.label)}${o.description ? s.dim(` — ${shown(o.description)}`) : ""}`));
        this.print(s.dim(`  ${q.multi_select ? "numbers separated by commas" : "a number"}, or type your own answer`));
        const line = await this.input.readLine(s.cyan("answer› "), { remember: false });
        if (line.kind !== "line") return null;
        answers[q.question] = pickedAnswer(q, line.text.trim());
      }
      return answers;
    };
    return this.#paused ? this.#paused(read) : read();
  }

  /**
   * Ends the session from outside (a signal): aborts the running operation
   * (its context stays valid, as after Ctrl-C) and ends the prompt being
   * read, so the loop ends as after `/exit` and the session is closed.
   */
  stop(): void {
    this.exitRequested = true;
    this.#running?.abort();
    this.input.cancel();
  }

  /** Writes a line (or lines). */
  print(text = ""): void {
    this.out.write(`${text}\n`);
  }

  /** Prints `error: message`, the message's control characters made visible (it may quote a server). */
  printError(error: unknown): void {
    this.print(`${this.style.red("error:")} ${visibleControls(error instanceof Error ? error.message : String(error))}`);
  }

  /**
   * The status line: model, context bar, this session's tokens (with `tokens`; else its cost, when priced), strategy, session id;
   * fitted to the terminal's row (what has no room left out) unless `whole`.
   */
  status(options: { tokens?: boolean; whole?: boolean } = {}): string {
    const columns = options.whole ? undefined : (this.out.columns ?? 80);
    return statusLine({ ...this.#statusInfo(), ...(options.tokens ? { tokens: this.tokens } : { cost: this.tokens }) }, this.style, columns);
  }

  #statusInfo(): StatusInfo {
    const { soul, providers, compaction, displayId } = this.agent;
    const status = soul.status;
    return {
      model: providers.main.modelName,
      contextTokens: status.contextTokens,
      usage: status.usage,
      sessionId: displayId,
      strategy: compaction.choice,
      yolo: soul.approval.yolo,
      plan: this.agent.planMode.on,
    };
  }

  /**
   * Shows the model's todo list (as the conversation now holds it): with
   * `always`, whatever it is; else only when it changed since last shown.
   */
  printTodo(options: { always?: boolean } = {}): void {
    const todos = todoListOf(this.agent.context.history);
    if (!options.always && sameTodoList(todos, this.#shownTodo)) return;
    this.#shownTodo = todos;
    if (todos === null || todos.length === 0) {
      if (options.always) this.print("No todo list.");
      return;
    }
    const done = todos.filter((t) => t.status === "done").length;
    this.print(this.style.bold(`Todo (${done}/${todos.length} done):`));
    this.print(todoLines(todos, (title) => visibleControls(title, { oneLine: true })).join("\n"));
  }

  /** Switches plan mode (Shift-Tab, `/plan`); returns the line saying what it is now. */
  togglePlanMode(): string {
    const mode = this.agent.planMode;
    mode.on = !mode.on;
    return mode.on ? this.style.cyan("plan mode on: only tools that read work; the agent asks you to approve its plan (Shift-Tab or /plan turns it off)") : "plan mode off";
  }

  /** Keeps a tool's whole output for Ctrl-O. */
  keepToolOutput(label: string, output: string): void {
    this.toolOutputs.push({ label, output });
    if (this.toolOutputs.length > keptToolOutputs) this.toolOutputs.shift();
  }

  /**
   * What Ctrl-O shows: the whole output of the `back`th latest tool (0: the
   * last) under a header saying which, or null when there is none that far back.
   */
  expandTool(back: number): string | null {
    const at = this.toolOutputs.length - 1 - back;
    const tool = this.toolOutputs[at];
    if (tool === undefined) return back > 0 && this.toolOutputs.length > 0 ? this.style.dim("── no earlier tool output ──") : null;
    const older = at > 0 ? " · Ctrl-O again: the one before" : "";
    return `${this.style.dim(`── ${tool.label}: whole output (tool ${at + 1} of ${this.toolOutputs.length}${older}) ──`)}\n${tool.output || this.style.dim("(no output)")}\n${this.style.dim("──")}`;
  }

  /**
   * `!command`: runs `command` with the agent's own Shell tool (its
   * environment, confinement and time limit) without asking for approval:
   * the user typed it. The command and its output are shown, not added to
   * the conversation. Ctrl-C or Esc stops it.
   */
  async runShell(command: string): Promise<void> {
    const controller = new AbortController();
    const stopWatching = this.input.watchTurn({ interrupt: () => controller.abort(), escape: () => void controller.abort(), line: () => undefined });
    try {
      const call = { type: "function" as const, id: `user-shell-${Date.now()}`, function: { name: "Shell", arguments: JSON.stringify({ command }) } };
      const running = this.agent.soul.agent.toolset.handle(call, { signal: controller.signal, context: { approval: userApproved } });
      const result = (await running).return_value;
      const output = toolOutputText(result);
      this.keepToolOutput(`!${oneLine(command, 60)}`, output);
      this.print(`${result.is_error ? this.style.red("✗") : this.style.green("✓")} ${this.style.bold(`!${oneLine(command, 70)}`)}${result.is_error ? this.style.dim(` → ${oneLine(result.message, 80)}`) : ""}`);
      const printed = typeof result.output === "string" ? visibleControls(result.output.replace(/\s+$/, "")) : output;
      if (printed && printed !== result.message) this.print(printed);
    } finally {
      stopWatching();
    }
  }

  /**
   * Runs a turn for `prompt`, the files it mentions (`@path`) attached. A
   * session's first prompt is recorded in its `session.json` while the turn
   * runs (the request does not wait for that write); a failed write is
   * printed once the turn has ended, and the session goes on.
   */
  async runPrompt(prompt: string): Promise<OperationEnd> {
    const recording = recordFirstPromptMeanwhile(this.agent.session, prompt);
    try {
      return await this.#runTurn(prompt);
    } finally {
      const failed = await recording;
      if (failed !== null) this.printError(failed.error);
    }
  }

  async #runTurn(prompt: string): Promise<OperationEnd> {
    let mentioned;
    try {
      mentioned = await attachMentions(prompt, this.agent.workspace, this.agent.imageInput());
    } catch (error) {
      if (!(error instanceof ImageInputError)) throw error;
      this.print(this.style.red(visibleControls(error.message, { oneLine: true })));
      return "done";
    }
    if (mentioned.attached.length > 0) this.print(this.style.dim(`attached: ${mentioned.attached.map((p) => visibleControls(p, { oneLine: true })).join(", ")}`));
    for (const { path, reason } of mentioned.refused) this.print(this.style.yellow(`@${visibleControls(path, { oneLine: true })} not attached: ${visibleControls(reason, { oneLine: true })}`));
    // Answers of background agents that finished between turns come first.
    const notices = this.agent.subagents.takeNotices();
    const text = withText(mentioned, this.agent.planMode.on ? `${mentioned.text}\n\n${planModeNote}` : mentioned.text);
    const input = notices.length > 0 ? withNoticesFirst(notices.join("\n\n"), text) : text;
    return this.drive((signal) => this.agent.soul.run(input, { signal }));
  }

  /**
   * Runs an operation of the soul (a turn, a rewrite, a compaction) with
   * its events rendered; Ctrl-C aborts it, and so does Esc unless a line is
   * queued. A line entered meanwhile is queued (shown, and taken back by
   * Esc) and handed to `soul.steer()` once the step's tools run, so the
   * model reads it after their results; one still queued when the operation
   * ends is left in {@link queuedInput}. Prints the status line after.
   */
  async drive(start: (signal: AbortSignal) => SoulStream<unknown>): Promise<OperationEnd> {
    const controller = new AbortController();
    this.#running = controller;
    const turn = this.#startTurn(controller);
    this.#paused = async (read) => {
      turn.keys.stop();
      try {
        return await turn.renderer.aside(read);
      } finally {
        if (!controller.signal.aborted) turn.keys.start();
        turn.screen.drawFooter();
      }
    };
    try {
      await this.#consume(start(controller.signal), turn);
    } catch (error) {
      this.printError(error);
    } finally {
      this.#running = null;
      this.#paused = null;
      turn.keys.stop();
      await turn.renderer.finish();
      turn.screen.releaseFooter();
    }
    this.#learnWindow(turn.errors);
    this.queuedInput.push(...turn.queue.drain());
    this.printTodo();
    this.print(this.status());
    return controller.signal.aborted ? "aborted" : "done";
  }

  /** The renderer, footer, queue and key watch of an operation about to start. */
  #startTurn(controller: AbortController): RunningTurn {
    const screen = ScreenWriter.for(this.out);
    const queue = new QueuedLines((text) => this.agent.soul.steer(text));
    const errors: string[] = [];
    let typedAhead = "";
    const keys = new TurnKeyWatch(this.input, () => ({
      interrupt: () => controller.abort(),
      expand: () => {
        this.expandChildren = renderer.toggleChildren();
        renderer.note(this.style.dim(this.expandChildren ? "agents' steps shown as they finish (Ctrl-O: only the latest)" : "agents' steps collapsed to the latest (Ctrl-O: all)"));
      },
      escape: () => {
        const taken = queue.takeBack();
        if (taken === undefined) return void controller.abort();
        renderer.note(this.style.dim(`✗ took back to edit: ${inputPreview(taken)}`));
        return taken;
      },
      typing: (text) => {
        typedAhead = text;
        screen.drawFooter();
      },
      line: (text) => {
        queue.push(text);
        renderer.note(`${this.style.cyan("⧗ queued:")} ${inputPreview(text)} ${this.style.dim("(sent after the running step · Esc takes it back to edit)")}`);
        queue.deliver();
      },
    }));
    const renderer = this.#turnRenderer(controller, screen, keys, () => typedAhead);
    keys.start();
    screen.reserveFooter(() => {
      const line = footerLine(this.#statusInfo(), this.tokens, this.style);
      return typedAhead ? `${line}   ${this.style.cyan("›")} ${inputPreview(typedAhead)}` : line;
    });
    return { renderer, queue, keys, screen, errors };
  }

  /** The renderer of an operation's events; an approval's question pauses the key watch while it is asked. */
  #turnRenderer(controller: AbortController, screen: ScreenWriter, keys: TurnKeyWatch, typedAhead: () => string): TurnRenderer {
    const out = this.out;
    return new TurnRenderer({
      out,
      style: this.style,
      get columns() {
        return out.columns ?? 80;
      },
      get rows() {
        return screen.outputRows;
      },
      showThinking: () => this.showThinking,
      spinner: Boolean(this.out.isTTY),
      askApproval: async (question) => {
        keys.stop();
        try {
          // What was typed ahead stays for the next prompt; the approval's answer is read apart from it.
          if (typedAhead()) this.print(this.style.dim(`  typed ahead, kept for after the answer: ${inputPreview(typedAhead())}`));
          return await this.askApproval(question, controller);
        } finally {
          if (!controller.signal.aborted) keys.start();
          screen.drawFooter();
        }
      },
      contextTokens: () => this.agent.soul.status.contextTokens,
      onToolOutput: (label, output) => this.keepToolOutput(label, output),
      expandChildren: this.expandChildren,
      childCost: (agentId, usage) => {
        const model = this.agent.subagents.modelOf(agentId);
        const price = model === null ? null : priceOf(model, this.agent.settings.prices);
        return price === null ? null : usageCost(usage, price);
      },
      respond: (id, reply) => {
        try {
          this.agent.soul.approval.respond(id, reply.kind, reply.feedback);
        } catch {
          // The request was already settled (the turn was aborted meanwhile).
        }
      },
    });
  }

  /** Renders the stream's events (the session's soul observes them itself); the session's tokens (a child's too, at its model's price) and the footer follow each usage. */
  async #consume(stream: SoulStream<unknown>, turn: RunningTurn): Promise<void> {
    for await (const event of stream as AsyncIterable<SoulEvent>) {
      await turn.renderer.render(event);
      if (event.type === "TurnEnd" && event.payload.error) turn.errors.push(event.payload.error);
      const counted = countedUsage(event);
      if (counted !== null) {
        // A child's call is priced at the child's model.
        const model = (counted.agentId && this.agent.subagents.modelOf(counted.agentId)) || this.agent.providers.main.modelName;
        this.tokens = addUsage(this.tokens, counted.usage, priceOf(model, this.agent.settings.prices));
        turn.screen.drawFooter();
      }
      turn.queue.observe(event);
    }
    await stream.result.catch((error: unknown) => {
      turn.errors.push(error instanceof Error ? error.message : String(error));
      this.printError(error);
    });
  }

  /**
   * After a request refused as too long, a window the server named that is
   * smaller than the one assumed becomes the session's (the bar and the
   * compaction follow it), and the user is told how to set it from the start.
   */
  #learnWindow(errors: readonly string[]): void {
    const { providers } = this.agent;
    const window = errors.map(reportedWindow).find((n) => n !== null);
    if (window === undefined || window === null || window >= providers.maxContextSize) return;
    this.agent.useProviders({ ...providers, maxContextSize: window });
    this.print(this.style.yellow(`The server's context window is ${window} tokens, not ${providers.maxContextSize}: this session uses it from now on (--max-context-size ${window} sets it from the start).`));
  }

  /**
   * Asks about an approval request; Ctrl-C there rejects and aborts the
   * turn. The request is shown by `approvalLines` (a file tool's diff
   * coloured, cut to the screen's height); the choice `[a]` says what
   * approving for the session covers.
   */
  async askApproval(question: ApprovalQuestion, controller: AbortController): Promise<ApprovalReply> {
    const s = this.style;
    const scope = question.scope ?? `every ${question.action} request`;
    this.print(approvalLines(question.sender, question.description, s, Math.max(8, (this.out.rows ?? 24) - 8)).join("\n"));
    // A request approved once only (leaving plan mode with this plan) has no choice that approves more.
    const always = question.once !== true;
    // "Always for this project" only where the project's rules are used: a trusted workspace.
    const rule = always && this.agent.permissionRules.files.projectTrusted ? ruleForApproval(question.action) : null;
    // ExitPlanMode's plan can be edited first: the plan approved is the user's version.
    const plan = this.agent.planMode.awaiting(question.toolCallId);
    const offered = [
      "[y] approve",
      ...(plan === null ? [] : ["[e] edit the plan, then approve it"]),
      ...(always ? [`[a] approve ${scope} for this session`] : []),
      ...(rule === null ? [] : [`[p] always for this project (${rule})`]),
      "[n] reject",
      "or type feedback to reject with it",
    ];
    this.print(s.dim(fitWords(offered, "  ", "   ", (this.out.columns ?? 80) - 1).join("\n")));
    const choices = ["y", ...(plan === null ? [] : ["e"]), ...(always ? ["a"] : []), ...(rule === null ? [] : ["p"]), "n"].join(", ");
    for (;;) {
      const answer = await this.input.readLine(s.yellow("approve? "), { remember: false });
      if (answer.kind !== "line") {
        controller.abort();
        return { kind: "reject" };
      }
      const text = answer.text.trim();
      const lower = text.toLowerCase();
      if (lower === "y" || lower === "yes") return { kind: "approve" };
      if (always && (lower === "a" || lower === "always")) return { kind: "approve_for_session" };
      if (lower === "p" && rule !== null) {
        try {
          await this.agent.permissionRules.allowForProject(rule);
          this.print(s.dim(`  saved \`allow: ${visibleControls(rule, { oneLine: true })}\` in .kosong/settings.json (used while this workspace is trusted)`));
        } catch (error) {
          this.printError(error);
        }
        return { kind: "approve_for_session" };
      }
      if (plan !== null && (lower === "e" || lower === "edit")) {
        const edited = await editPlan(this.agent.planMode.awaiting(question.toolCallId) ?? plan, { input: this.input, out: this.out, style: s, print: (line) => this.print(line), env: this.agent.env });
        if (edited !== null && this.agent.planMode.edit(question.toolCallId, edited)) return { kind: "approve" };
        this.print(s.dim(`  answer ${choices}, or type feedback`));
        continue;
      }
      if (lower === "n" || lower === "no") return { kind: "reject" };
      if (text.length > 1 && (always || lower !== "always")) return { kind: "reject", feedback: text };
      this.print(s.dim(`  answer ${choices}, or type feedback`));
    }
  }
}

/** What an operation running in {@link InteractiveSession.drive} is shown and read with. */
interface RunningTurn {
  renderer: TurnRenderer;
  queue: QueuedLines;
  keys: TurnKeyWatch;
  screen: ScreenWriter;
  /** The errors the operation ended with (a window the server reports is learnt from them). */
  errors: string[];
}

/** The answer `typed` gives to `q`: the labels of the numbers typed, else the text itself. */
function pickedAnswer(q: QuestionItem, typed: string): string {
  const numbers = typed.split(",").map((n) => n.trim());
  const picked = numbers.every((n) => /^\d+$/.test(n) && Number(n) >= 1 && Number(n) <= q.options.length) ? numbers.map((n) => q.options[Number(n) - 1]!.label) : null;
  if (picked && (q.multi_select || picked.length === 1)) return picked.join(", ");
  return typed;
}

/** A queued input on one line: its first 80 characters, and how many lines it has. */
function inputPreview(text: string): string {
  const lines = text.split("\n").length;
  return `${oneLine(text, 80)}${lines > 1 ? ` (${lines} lines)` : ""}`;
}

/** The tokens a `StatusUpdate` reports, also one of a child (nested in `SubagentEvent`s), with the child's id; null for other events. */
function countedUsage(event: SoulEvent, agentId: string | null = null): { usage: TokenUsage; agentId: string | null } | null {
  if (event.type === "SubagentEvent") return countedUsage(event.payload.event, event.payload.agent_id);
  return event.type === "StatusUpdate" && event.payload.token_usage ? { usage: event.payload.token_usage, agentId } : null;
}
