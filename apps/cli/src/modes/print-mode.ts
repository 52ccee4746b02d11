/**
 * Print mode (`kosong -p PROMPT`): one turn, then exit. A small subscriber
 * to the turn's events: in `text` format the assistant's text goes to
 * stdout as each response completes (a cut, retried attempt writes nothing); in `stream-json` every event is one wire-envelope JSON line.
 * Tools that need approval are refused (the model reads why) unless
 * `--yolo`. The text's control characters are shown, not obeyed (see
 * `visibleControls`); `stream-json` carries the events as they are. Exit codes: 0 done, 1 error (message on stderr), 130 aborted.
 */
import { serializeEvent, type SoulEvent, type TurnResult, type UserInput } from "@kosong/soul";
import { openAgentSession, type AgentSession, type SessionChoice } from "../agent/agent-session.js";
import { ExitCode } from "../cli-error.js";
import type { Settings } from "../config/settings.js";
import { expandPromptCommand } from "../extensions/prompt-extensions.js";
import { noQuestioner, type QuestionerSource } from "../questions/ask-user-question.js";
import { configuredQuestioner, hasConfiguredAnswers } from "../questions/configured-answers.js";
import { planModeNote } from "../plan/plan-mode.js";
import type { Providers } from "../providers/create-provider.js";
import { count } from "../render/count.js";
import { fileRecoveryLines } from "../render/file-recovery-lines.js";
import { oneLine, visibleControls } from "../render/visible-controls.js";
import { attachMentions, ImageInputError, withText } from "./interactive/file-mentions.js";
import { firstPromptNotRecorded, recordFirstPromptMeanwhile } from "../sessions/session-store.js";

/** What print mode runs. */
export interface PrintModeOptions {
  settings: Settings;
  providers: Providers;
  choice: SessionChoice;
  prompt: string;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
}

/** The feedback a refused tool call gives the model in print mode. */
export const printModeRefusal = "Tools that need approval are refused in print mode (kosong -p) unless --yolo is given. Do without this action, or say what the user should run.";

/** Runs one turn and returns the exit code. */
export async function runPrintMode(options: PrintModeOptions): Promise<number> {
  const { settings, prompt } = options;
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const agent = await openAgentSession({ settings: options.settings, providers: options.providers, choice: options.choice });
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  // --max-time: the whole run, stalls and retries included, ends after this long (exit 1).
  let timedOut = false;
  const timer =
    settings.maxTimeMs === null
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, settings.maxTimeMs);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let recording: Promise<{ error: unknown } | null> = Promise.resolve(null);
  try {
    const skipped = agent.restoreReport.skipped.length;
    if (skipped > 0) err.write(`kosong: ${count(skipped, "damaged line")} of ${agent.contextFile} skipped (the file is left as it is)\n`);
    for (const line of fileRecoveryLines(agent.restoreReport.fileRecovery)) err.write(`kosong: ${line.trimStart()}\n`);
    for (const line of agent.subagentNotices) err.write(`kosong: ${visibleControls(line, { oneLine: true })}\n`);
    // Written while the turn runs (the request does not wait for the write's sync); a failure is told at the end.
    recording = recordFirstPromptMeanwhile(agent.session, prompt);
    agent.questioner = printModeQuestioner(settings, err);
    const refused: string[] = [];
    agent.soul.approval.subscribe((event) => {
      if (event.type !== "ApprovalRequest") return;
      refused.push(oneLine(`${event.payload.sender}: ${event.payload.description.split("\n", 1)[0]}`, 100));
      agent.soul.approval.respond(event.payload.id, "reject", printModeRefusal);
    });
    // A background agent's request between turns is refused the same way (and counted).
    agent.subagents.answersBetweenTurns = true;
    // `/name args`: a custom command's template or a skill, as at the interactive prompt.
    const expanded = prompt.trimStart().startsWith("/") ? await expandPromptCommand(agent.extensions, prompt) : null;
    const text = expanded ?? prompt;
    const print = settings.outputFormat === "stream-json" ? jsonPrinter(out) : textPrinter(out, err, () => !timedOut);
    let mentioned;
    try {
      mentioned = await attachMentions(text, agent.workspace, agent.imageInput());
    } catch (error) {
      if (!(error instanceof ImageInputError)) throw error;
      err.write(`kosong: ${visibleControls(error.message, { oneLine: true })}\n`);
      return ExitCode.usage;
    }
    for (const { path, reason } of mentioned.refused) err.write(`kosong: @${visibleControls(path, { oneLine: true })} not attached: ${visibleControls(reason, { oneLine: true })}\n`);
    let result = await runTurn(agent, withText(mentioned, agent.planMode.on ? `${mentioned.text}\n\n${planModeNote}` : mentioned.text), controller.signal, print);
    // Background agents still running: their answers come in as the next turn's input, until none is left.
    while (result.stopReason === "no_tool_calls") {
      await agent.subagents.settled();
      const notices = agent.subagents.takeNotices();
      if (notices.length === 0) break;
      result = await runTurn(agent, notices.join("\n\n"), controller.signal, print);
    }
    if (settings.outputFormat === "text" && result.stopReason !== "error" && !timedOut) out.write("\n");
    if (timedOut) {
      err.write(`kosong: stopped after ${(settings.maxTimeMs ?? 0) / 1000} s (--max-time; 0: no limit)\n`);
      return ExitCode.error;
    }
    if (refused.length > 0) err.write(`kosong: ${count(refused.length, "tool call")} refused without --yolo (print mode cannot ask): ${refused.join("; ")}\n`);
    return exitCodeOf(result, err);
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    const failed = await recording;
    if (failed !== null) err.write(`kosong: ${firstPromptNotRecorded(failed.error)}\n`);
    await agent.close();
  }
}

/** Where print mode's questions go: the configured answers (each told on stderr), or nobody. */
function printModeQuestioner(settings: Settings, err: NodeJS.WritableStream): QuestionerSource {
  const where = `in print mode (kosong -p${settings.outputFormat === "stream-json" ? " --output-format stream-json" : ""})`;
  const configured = settings.questionAnswers;
  if (!hasConfiguredAnswers(configured)) return () => noQuestioner(where);
  const unanswered = `${noQuestioner(where)} No answer is configured for these questions (--answer, --default-answer, [questions] in config.toml).`;
  const questioner = configuredQuestioner(configured, unanswered, (question, answer) =>
    err.write(`kosong: AskUserQuestion answered from the configuration: ${oneLine(question.question, 100)} → ${oneLine(answer, 100)}\n`),
  );
  return () => questioner;
}

async function runTurn(agent: AgentSession, input: UserInput, signal: AbortSignal, print: (event: SoulEvent) => void): Promise<TurnResult> {
  const turn = agent.soul.run(input, { signal });
  for await (const event of turn) print(event);
  return turn.result;
}

function jsonPrinter(out: NodeJS.WritableStream): (event: SoulEvent) => void {
  return (event) => out.write(`${serializeEvent(event)}\n`);
}

/**
 * Writes the assistant's text; a step's text starts on a new paragraph
 * after an earlier step's. Streamed text cannot be taken back, so an
 * attempt's text is held until its response is complete: a connection cut
 * mid-answer and retried (`StepRetry`) drops the cut attempt's text, and a
 * turn that fails (or runs out of --max-time) writes nothing of its failed
 * step. An abort (Ctrl-C) writes what had come. `stream-json` tells attempts apart by `StepRetry`.
 */
function textPrinter(out: NodeJS.WritableStream, err: NodeJS.WritableStream, keepPartial: () => boolean): (event: SoulEvent) => void {
  let wroteText = false;
  let held = "";
  const flush = (): void => {
    if (!held) return;
    out.write(`${wroteText ? "\n\n" : ""}${held}`);
    wroteText = true;
    held = "";
  };
  return (event) => {
    switch (event.type) {
      case "TextPart":
        held += visibleControls(event.payload.text);
        return;
      case "StepRetry":
        if (held) err.write(`kosong: the answer was cut off (${visibleControls(event.payload.error)}); retrying\n`);
        held = "";
        return;
      case "StatusUpdate":
        return flush();
      case "StepInterrupted":
        if (event.payload.reason === "aborted" && keepPartial()) flush();
        held = "";
        return;
      case "Warning":
        // A hook's notice (timed out, failed, garbage output) is the user's to see; the model never reads it.
        if (event.payload.code.startsWith("hook")) err.write(`kosong: ${visibleControls(event.payload.message, { oneLine: true })}\n`);
        return;
      default:
        return;
    }
  };
}

function exitCodeOf(result: TurnResult, err: NodeJS.WritableStream): number {
  switch (result.stopReason) {
    case "aborted":
      err.write("kosong: aborted\n");
      return ExitCode.aborted;
    case "error":
      err.write(`kosong: ${visibleControls(result.error?.message ?? "the turn failed")}\n`);
      return ExitCode.error;
    case "tool_rejected":
      err.write("kosong: a tool call was rejected; the turn stopped\n");
      return ExitCode.error;
    case "max_steps":
      err.write("kosong: the turn reached the step limit\n");
      return ExitCode.error;
    case "no_tool_calls":
      return ExitCode.ok;
  }
}
