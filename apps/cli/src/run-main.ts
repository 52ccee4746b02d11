/**
 * The main command: resolves settings and providers, opens the session and
 * runs print mode (`-p`) or the interactive mode.
 */
import { fstat } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { promisify } from "node:util";
import type { ChoiceOrPick } from "./modes/interactive/session-picker.js";
import { UsageError } from "./cli-error.js";
import { resolveSettings } from "./config/settings.js";
import type { MainOptions } from "./program.js";
import { createProviders, loadProviders } from "./providers/create-provider.js";
import { type ProcessIo, processIo } from "./process-io.js";
import { startupMark } from "./startup-marks.js";

const fstatAsync = promisify(fstat);

/**
 * Runs `kosong [prompt]` / `kosong -p PROMPT`; returns the exit code. The
 * interactive mode runs on `io` (the process's terminal, environment and
 * directory unless given).
 */
export async function runMain(firstPrompt: string, options: MainOptions, io: ProcessIo = processIo): Promise<number> {
  startupMark("main");
  if (options.workDir !== undefined) await enterWorkDir(options.workDir);
  const choice = await sessionChoice(options);
  if (options.print !== undefined && firstPrompt) throw new UsageError("Give the prompt either with -p or as arguments, not both.");
  if (options.print === undefined && options.outputFormat) throw new UsageError("--output-format applies to print mode: add -p PROMPT.");
  if (options.wire && (options.print !== undefined || firstPrompt)) throw new UsageError("--wire takes its prompts from the wire client: drop -p and the prompt.");
  const settings = await resolveSettings({ ...options, thinking: thinkingFlag(options.thinking) }, io.env);
  startupMark("config");
  const providers = await createProviders(settings, io.env);
  startupMark("providers");
  // The first request needs the model's SDK. Without a terminal prompt it loads while the session opens (reading files,
  // running git); the interactive mode loads it once its prompt is drawn, while the user types: the prompt does not need
  // it, and it is most of what the start would otherwise hold in memory and run before the prompt.
  const interactive = !options.wire && options.print === undefined;
  if (!interactive) void loadProviders(providers);
  if (settings.sessionRetention !== null) {
    const { applySessionRetention } = await import("./sessions/startup-retention.js");
    await applySessionRetention(settings, choice, await realpath(io.cwd()), io.stderr);
  }
  if (options.wire) {
    if (choice.kind === "pick") throw new UsageError("--resume without an id picks a session interactively; with --wire, give the id or use --session.");
    const { runWireMode } = await import("./modes/wire-mode.js");
    return runWireMode({ settings, providers, choice });
  }
  if (options.print !== undefined) {
    const prompt = options.print === "-" ? await readStdin() : withPipedInput(options.print, await pipedStdin());
    if (!prompt.trim()) throw new UsageError("-p: the prompt is empty.");
    const { runPrintMode } = await import("./modes/print-mode.js");
    startupMark("mode-loaded");
    return runPrintMode({ settings, providers, choice: choice.kind === "pick" ? { kind: "new" } : choice, prompt });
  }
  const { runInteractive } = await import("./modes/interactive/run-interactive.js");
  startupMark("mode-loaded");
  return runInteractive({ settings, providers, choice, firstPrompt, io });
}

/** Runs `kosong acp`: serves ACP on stdin/stdout with the settings of the global flags; returns the exit code. */
export async function runAcp(options: MainOptions): Promise<number> {
  const settings = await resolveSettings({ ...options, thinking: thinkingFlag(options.thinking) });
  const providers = await createProviders(settings);
  const { runAcpMode } = await import("./modes/acp-mode.js");
  return runAcpMode({ settings, providers });
}

/** `--thinking` alone is kimi-cli's switch (medium effort); `--no-thinking` turns it off. */
function thinkingFlag(value: string | boolean | undefined): string | undefined {
  if (value === true) return "medium";
  if (value === false) return "off";
  return value;
}

async function enterWorkDir(dir: string): Promise<void> {
  const isDir = await stat(dir).then((s) => s.isDirectory(), () => false);
  if (!isDir) throw new UsageError(`--work-dir: no such directory: ${dir}`);
  process.chdir(dir);
}

async function sessionChoice(options: MainOptions): Promise<ChoiceOrPick> {
  const given = [options.continue && "--continue", options.resume !== undefined && "--resume", options.resumeFile !== undefined && "--resume-file", options.session !== undefined && "--session"].filter(Boolean);
  if (given.length > 1) throw new UsageError(`${given.join(" and ")} cannot be used together.`);
  if (typeof options.resume === "string" && !options.resume.trim()) throw new UsageError("--resume: the session id is empty; give an id or a unique id prefix (see `kosong sessions`).");
  if (options.resumeFile !== undefined && !options.resumeFile.trim()) throw new UsageError("--resume-file: the path is empty.");
  if (options.session !== undefined && !options.session.trim()) throw new UsageError("--session: the session id is empty.");
  if (options.resumeFile !== undefined) {
    const isFile = await stat(options.resumeFile).then((s) => s.isFile(), () => false);
    if (!isFile) throw new UsageError(`--resume-file: no such file: ${options.resumeFile}`);
    return { kind: "resume-file", file: options.resumeFile };
  }
  if (options.resume === true) {
    if (options.print !== undefined) throw new UsageError("--resume without an id picks a session interactively; with -p, give the id (see `kosong sessions`).");
    return { kind: "pick" };
  }
  if (options.resume !== undefined) return { kind: "resume", id: options.resume };
  if (options.session !== undefined) return { kind: "session", id: options.session };
  return options.continue ? { kind: "continue" } : { kind: "new" };
}

/** What was piped or redirected into stdin (a pipe, a socket or a file, never a terminal), else "". */
async function pipedStdin(): Promise<string> {
  const piped = await fstatAsync(0).then((s) => s.isFIFO() || s.isFile() || s.isSocket(), () => false);
  return piped ? readStdin() : "";
}

/** `prompt` with piped input after it as context, as other CLIs take `cat log | cli -p "explain"`. */
export function withPipedInput(prompt: string, piped: string): string {
  return piped.trim() ? `${prompt}\n\n<stdin>\n${piped.replace(/\n$/, "")}\n</stdin>` : prompt;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
