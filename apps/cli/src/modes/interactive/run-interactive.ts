/**
 * Interactive mode (`kosong`): a prompt with line editing and history, turns
 * rendered as they stream, approvals asked inline, slash commands, and a
 * status line after each turn. Built on node:readline rather than a React
 * terminal UI: ink + react take ~0.45 s to import here (measured against
 * ~0.07 s for `node -e 0`), and the scrollback stays plain terminal text.
 */
import { constants } from "node:os";
import path from "node:path";
import packageJson from "../../../package.json" with { type: "json" };
import { openAgentSession, warnOn } from "../../agent/agent-session.js";
import { ExitCode, UsageError } from "../../cli-error.js";
import type { Settings } from "../../config/settings.js";
import { type ProcessIo, processIo } from "../../process-io.js";
import { keepHttpParserAtBaseline } from "../../http-parser-tier.js";
import { loadProviders, type Providers, warmUpProviders } from "../../providers/create-provider.js";
import { count } from "../../render/count.js";
import { fileRecoveryLines } from "../../render/file-recovery-lines.js";
import { recentTranscript } from "../../render/recent-transcript.js";
import { warmMarkdownRenderer } from "../../render/markdown-stream.js";
import { releaseStartUpMemory } from "../../start-up-memory.js";
import { styleFor } from "../../render/terminal-style.js";
import { visibleControls } from "../../render/visible-controls.js";
import { InteractiveSession, type OperationEnd, promptText } from "./interactive-session.js";
import { complete } from "./completer.js";
import { type ChoiceOrPick, pickSession } from "./session-picker.js";
import { commandNames, runSlashCommand } from "./slash-commands.js";
import { TerminalInput } from "./terminal-input.js";
import { askWorkspaceTrust } from "./workspace-trust-prompt.js";
import { startOpenProgress } from "./open-progress.js";
import { ScreenWriter } from "../../render/screen-writer.js";
import { startupMark } from "../../startup-marks.js";

/** What the interactive mode runs. */
export interface InteractiveOptions {
  settings: Settings;
  providers: Providers;
  /** The session to open; `pick` asks which. */
  choice: ChoiceOrPick;
  /** A prompt to run first (the command line's words). */
  firstPrompt: string;
  /** The terminal, environment, directory and signals (default: the process's). */
  io?: ProcessIo;
}

/**
 * Runs the interactive session; returns the exit code. SIGTERM and SIGHUP
 * (the terminal closed) end it as `/exit` does, aborting a running turn
 * first, so the session is closed and saved; the exit code is then 128 plus
 * the signal's number.
 */
export async function runInteractive(options: InteractiveOptions): Promise<number> {
  const io = options.io ?? processIo;
  const { stdin, stdout } = io;
  if (!stdin.isTTY) throw new UsageError("Interactive mode needs a terminal; use -p PROMPT (or -p - to read the prompt from stdin).");
  const style = styleFor(stdout, io.env);
  const input = new TerminalInput(stdin, stdout, path.join(options.settings.home, "history"));
  const print = (line: string) => stdout.write(`${line}\n`);
  const picked = await pickSession(options.settings.home, io.cwd(), options.choice, { input, print, style });
  // An open that takes over a second shows how far it got (a long conversation being read).
  const progress = startOpenProgress(ScreenWriter.for(stdout), style.dim);
  // MCP servers start in the background: a line per server now, one as each is ready, above the prompt once it is drawn.
  const agent = await openAgentSession({
    ...options,
    choice: picked.choice,
    cwd: picked.cwd,
    env: io.env,
    askWorkspaceTrust: (offer) => {
      progress.stop();
      return askWorkspaceTrust(offer, input, print, style);
    },
    mcpProgress: (line) => input.printAbove(style.dim(line)),
    // A warning on stderr would land on the progress line: the progress ends first.
    warn: (line) => {
      progress.stop();
      warnOn(io.stderr)(line);
    },
    openProgress: (done, total) => progress.report(done, total),
  }).finally(() => progress.stop());
  const session = new InteractiveSession(agent, input, stdout, style);
  let signalled: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    // After a hangup the terminal is gone: what is still written to it fails, and must not end the process before the session is closed.
    if (signal === "SIGHUP") stdout.on("error", () => undefined);
    signalled ??= signal;
    session.stop();
  };
  io.signals.on("SIGTERM", onSignal);
  io.signals.on("SIGHUP", onSignal);
  try {
    await input.loadHistory();
    printBanner(session);
    // Heavy modules the prompt does not need load while the user types, starting as soon as the prompt is drawn (runLoop
    // draws it synchronously before its first wait): the model's SDK first, so that Enter sends at once, and with it loaded
    // (Node's fetch too) the HTTP parser is kept on V8's baseline code if the prompt still waits (see http-parser-tier.ts); then, while the
    // prompt waits, a new session's system prompt goes into its file (the first turn's write is then one append like any
    // turn's), one turn with a twin of the provider against a throwaway local server (Node's fetch, the SDK and the
    // agent loop run their code for the first time: the first turn took twice a later one), and Markdown, warmed up on a sample (the first
    // answer's render would otherwise compile marked's rules: ~25 ms of the first turn's CPU); then, still while it waits,
    // one full collection, after which V8's memory reducer shrinks the heap the start grew (see start-up-memory.ts).
    setImmediate(() => {
      startupMark("prompt-drawn");
      const idle = () => input.reading;
      void loadProviders(agent.providers)
        .then(() => (idle() ? keepHttpParserAtBaseline() : undefined))
        .then(() => (idle() ? agent.storeSystemPrompt() : undefined))
        .then(() => warmUpProviders(agent.providers, idle, { systemPrompt: agent.soul.agent.systemPrompt, tools: agent.soul.agent.toolset.tools }))
        .then(() => warmMarkdownRenderer(stdout.columns ?? 80, idle))
        .then(() => {
          if (idle()) releaseStartUpMemory();
        })
        .catch(() => undefined);
    }).unref();
    await runLoop(session, options.firstPrompt);
    return signalled === null ? ExitCode.ok : 128 + constants.signals[signalled];
  } finally {
    io.signals.off("SIGTERM", onSignal);
    io.signals.off("SIGHUP", onSignal);
    await agent.close();
  }
}

/**
 * The read-eval loop: a first prompt if given, then prompts and slash
 * commands until `/exit`, Ctrl-D, or Ctrl-C twice at an empty prompt.
 */
export async function runLoop(session: InteractiveSession, firstPrompt = ""): Promise<void> {
  const { input, style } = session;
  let lastEnd: OperationEnd = "done";
  if (firstPrompt.trim() && !session.exitRequested) lastEnd = await runWhenMcpReady(session, firstPrompt);
  let interruptedOnce = false;
  while (!session.exitRequested) {
    // What background agents asked while no turn ran comes first.
    await session.askWaitingApprovals();
    const queued = session.queuedInput.splice(0).join("\n");
    if (queued && lastEnd === "done") {
      session.print(`${style.cyan(promptText)}${visibleControls(queued)} ${style.dim("(queued)")}`);
      lastEnd = await session.runPrompt(queued);
      continue;
    }
    // Each Ctrl-O at this prompt shows an earlier tool's output: the last one first.
    let back = 0;
    const read = await input.readLine(style.cyan(promptText), {
      expand: () => session.expandTool(back++),
      shiftTab: () => `${session.togglePlanMode()}\n${session.status()}`,
      complete: (before) => complete(before, commandNames(session), session.agent.workspace),
      preempt: (end) => session.preemptPrompt(end),
      ...(queued ? { initial: queued } : {}),
    });
    if (read.kind === "preempted") continue;
    if (read.kind === "eof") break;
    if (read.kind === "interrupt") {
      if (read.hadText) {
        interruptedOnce = false;
        continue;
      }
      if (interruptedOnce) break;
      interruptedOnce = true;
      session.print(style.dim("(Ctrl-C again or Ctrl-D to exit)"));
      continue;
    }
    interruptedOnce = false;
    const line = read.text.trim();
    if (!line) continue;
    lastEnd = "done";
    if (line.startsWith("!")) await session.runShell(line.slice(1).trim()).catch((error: unknown) => session.printError(error));
    else if (line.startsWith("/")) await runSlashCommand(session, line);
    else lastEnd = await runWhenMcpReady(session, line);
  }
  const { agent } = session;
  // A saved session quit before its first prompt is not kept (see AgentSession.close).
  if (agent.session?.firstPrompt === null && agent.context.history.length === 0) session.print(style.dim("No prompt given: no session saved."));
  else session.print(style.dim(`Session saved: ${agent.displayId}${agent.session ? ` (kosong --resume ${agent.displayId})` : ""}`));
}

/** Runs the prompt `line` once the MCP servers are ready (or failed), so the model sees their tools; says so when it waits. */
async function runWhenMcpReady(session: InteractiveSession, line: string): Promise<OperationEnd> {
  let ready = false;
  const waiting = session.agent.mcpReady.then(() => {
    ready = true;
  });
  await Promise.resolve();
  if (!ready) {
    session.print(session.style.dim("Waiting for the MCP servers to start…"));
    await waiting;
  }
  return session.runPrompt(line);
}

/** Prints the version, the working directory, what was resumed and the status line. */
export function printBanner(session: InteractiveSession): void {
  const { agent, style } = session;
  session.print(`${style.bold("kosong")} ${packageJson.version} · ${agent.cwd}`);
  const restored = agent.context.history.length;
  if (restored > 0) {
    session.print(style.dim(`Resumed ${agent.displayId}: ${count(restored, "message")}. The last of them:`));
    for (const line of recentTranscript(agent.context.history, style, session.out.columns ?? 80)) session.print(line);
  }
  const skipped = agent.restoreReport.skipped.length;
  if (skipped > 0) session.print(style.yellow(`${count(skipped, "damaged line")} of ${agent.contextFile} skipped (the file is left as it is).`));
  for (const line of fileRecoveryLines(agent.restoreReport.fileRecovery)) session.print(style.yellow(line));
  for (const line of agent.subagentNotices) session.print(style.yellow(visibleControls(line, { oneLine: true })));
  session.print(style.dim("/help for commands · Ctrl-C aborts a turn · Ctrl-D exits"));
  session.print(session.status());
}
