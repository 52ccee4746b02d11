/**
 * The `Shell` tool: runs a command with bash in the working directory, after
 * approval. Output (stdout and stderr, interleaved as they arrive) is capped;
 * the command runs in its own process group, which a timeout or an abort
 * kills, and so does kosong's end, a crash or SIGKILL included (see
 * `process-group-guard.ts`).
 *
 * A shell command is not confined to the working directory as the file tools
 * are: the approval prompt is the guard, and approving for the session
 * covers only what `shellApproval` says (never every later command). Its
 * environment is kosong's without the credentials (see `child-environment.ts`).
 * With a host that runs commands (an editor's terminal over ACP), the
 * approved command runs there, with that same environment and nothing of
 * the host's own.
 *
 * With a sandbox (see `../sandbox/`), a command runs inside it: it can write
 * only in the workspace and a temp folder, not read credentials, and reach
 * only the network the settings allow; with `sandbox = "auto-allow"` it runs
 * without asking. A command the model asks to run outside the sandbox
 * (`outside_sandbox`, with its reason) is always asked for, with the reason,
 * under an approval key of its own. A command the host runs is not
 * sandboxed.
 *
 * With the session's file journal, the workspace is scanned before and after
 * the command so that a revert restores the files it changed (see
 * `FileJournal.scanCommand`); when the scan is over its limits the result
 * says the command's changes are not journaled.
 */
import { spawn } from "node:child_process";
import { type ToolContext, type ToolReturnValue, toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "./built-in-tool.js";
import { scanCommand } from "@kosong/workspace";
import * as z from "zod";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";
import type { BackgroundJobs, JobCommand } from "../jobs/background-jobs.js";
import { askApproval } from "./ask-approval.js";
import { capOutput, defaultOutputCap } from "./cap-output.js";
import { childEnvironment } from "./child-environment.js";
import { descendants, killTree } from "../jobs/process-tree.js";
import { guardProcessGroup } from "./process-group-guard.js";
import { shellApproval } from "./shell-approval.js";
import type { Workspace } from "./workspace.js";

/** The parameters of `Shell` (listed in `tools/built-in-tool-parameters.ts`). */
export const shellParameters = z.lazy(() => z.object({
  command: z.string().min(1).describe("The bash command to run in the working directory."),
  timeout: z.int().min(1).max(600).default(60).describe("Seconds before the command is killed (default 60, at most 600)."),
  outside_sandbox: z.boolean().default(false).describe("Run outside the sandbox (when there is one): only when the command cannot work inside it; the user is asked, with your reason."),
  reason: z.string().max(500).optional().describe("With outside_sandbox: why the command must leave the sandbox."),
  run_in_background: z
    .boolean()
    .default(false)
    .describe("Start the command as a background job (a dev server, a long build) and return its job id at once; read its output with TaskOutput, stop it with TaskStop. You are told when it ends; it ends with the session at the latest."),
}));

/**
 * Builds `Shell` for `workspace`; commands run with `env` (default: this
 * process's environment under the default policy of `child-environment.ts`),
 * in `sandbox` when given.
 */
export function shellTool(workspace: Workspace, env: Record<string, string> = childEnvironment(process.env), sandbox: CommandSandbox | null = null, jobs: BackgroundJobs | null = null) {
  const hostRun = workspace.host?.runCommand;
  const inSandbox = hostRun ? null : sandbox;
  const sandboxNote = inSandbox ? ` ${inSandbox.describe()}` : "";
  return defineBuiltInTool({
    name: "Shell",
    description: `Run a bash command in the working directory and get its output (stdout and stderr) and exit code. Needs the user's approval.${sandboxNote}`,
    parameters: shellParameters,
    async execute({ command, timeout, outside_sandbox, reason, run_in_background }, context) {
      // The sandbox's first use tries it; one that cannot start here leaves the command as without a sandbox.
      const box = (await inSandbox?.usable()) ?? null;
      const sandboxed = box !== null && !outside_sandbox;
      if (run_in_background && (hostRun || !jobs)) return toolError({ message: "Background commands are not available here: run the command without run_in_background.", brief: "No background jobs" });
      if (!(sandboxed && box.autoAllow)) {
        const rejected = await askShellApproval(context, command, box !== null && outside_sandbox ? (reason ?? "") : null);
        if (rejected) return rejected;
      }
      // The description told the model of the sandbox: a command run without it (its trial failed) says so.
      const unsandboxed = inSandbox !== null && box === null ? `\n\nNote: this ${run_in_background ? "job runs" : "command ran"} without the sandbox the tool's description names (bubblewrap cannot start one here).` : "";
      if (run_in_background) return startJob(jobs!, command, sandboxed ? box.wrapShell(command, env, { detached: true }) : { file: "bash", args: ["-c", command], env }, workspace.root, unsandboxed);
      const scan = await scanCommand(context, command, { name: "Shell", arguments: JSON.stringify({ command, timeout, outside_sandbox, ...(reason === undefined ? {} : { reason }) }) });
      let run: CommandRun;
      let notice: string | null;
      try {
        // Spawned detached with stdin ignored (see runCommand): no terminal to guard with bwrap's new session.
        const spawned = sandboxed ? box.wrapShell(command, env, { detached: true }) : { file: "bash", args: ["-c", command], env };
        run = hostRun
          ? await hostRun({ command, cwd: workspace.root, env, timeoutMs: timeout * 1000, signal: context.signal })
          : await runCommand(spawned, workspace.root, timeout * 1000, context.signal);
      } finally {
        ({ notice } = await scan.finish());
      }
      const output = capOutput(run.output || "(no output)") + (notice === null ? "" : `\n\nNote: ${notice}.`) + unsandboxed;
      if (run.timedOut) return toolError({ message: `The command was killed after ${timeout} s.`, output, brief: "Timed out" });
      if (run.exitCode !== 0) return toolError({ message: `The command exited with code ${run.exitCode ?? run.signal}.`, output, brief: `Exit code ${run.exitCode ?? run.signal}` });
      return toolOk({ output, brief: firstLine(run.output) });
    },
  });
}

/** Starts `command` as a background job; the model reads its id (or why it could not start), then `note` (empty, or why the job runs without the sandbox). */
async function startJob(jobs: BackgroundJobs, command: string, spawned: JobCommand, cwd: string, note: string): Promise<ToolReturnValue> {
  try {
    const job = await jobs.start(command, spawned, cwd);
    return toolOk({
      output: `Started background job ${job.id}. Read its output with TaskOutput (job_id "${job.id}"), stop it with TaskStop; you will be told when it ends. Its changes to files are not journaled (a revert does not undo them).${note}`,
      brief: `Background job ${job.id}`,
    });
  } catch (error) {
    return toolError({ message: `The background job did not start: ${error instanceof Error ? error.message : String(error)}`, brief: "Not started" });
  }
}

interface CommandRun {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

/**
 * Asks to run `command`; `outsideReason` non-null: the model asked to run it
 * outside the sandbox for that reason, which the question says, under a key
 * of its own (approving a command in the sandbox never lets it out).
 */
function askShellApproval(context: ToolContext, command: string, outsideReason: string | null): Promise<ToolReturnValue | null> {
  const { action, scope } = shellApproval(command);
  if (outsideReason === null) return askApproval(context, action, `Run: ${command}`, scope);
  const why = outsideReason.trim() ? ` (reason: ${outsideReason.trim()})` : " (no reason given)";
  return askApproval(context, `${action} outside the sandbox`, `Run outside the sandbox${why}: ${command}`, `${scope} outside the sandbox`);
}

/** How long an ended command's output pipes are waited for after SIGKILL. */
const pipesGraceMs = 1000;

/**
 * Runs `spawned` detached (its own session and process group, stdin not a
 * terminal), unless `signal` is already aborted (rejects); a timeout or `signal` SIGKILLs its group and every process
 * below it (see `../jobs/process-tree.ts`), and it returns at most
 * {@link pipesGraceMs} later.
 */
function runCommand(spawned: { file: string; args: string[]; env: Record<string, string> }, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    // Cancelled while the workspace was scanned: nothing is started (the call reports the cancellation).
    if (signal.aborted) return reject(new Error("The command was cancelled before it started."));
    const child = spawn(spawned.file, spawned.args, { cwd, env: spawned.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const guard = child.pid === undefined ? null : guardProcessGroup(child.pid);
    let output = "";
    let timedOut = false;
    const collect = (chunk: Buffer) => {
      if (output.length <= defaultOutputCap * 2) output += chunk.toString("utf8");
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    let letGo: NodeJS.Timeout | undefined;
    const kill = () => {
      if (child.pid === undefined || letGo) return;
      killTree(child.pid, descendants(child.pid));
      // Should a process out of reach still hold the output pipes, the call returns anyway.
      letGo = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, pipesGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    signal.addEventListener("abort", kill, { once: true });
    child.on("error", (error) => {
      clearTimeout(timer);
      clearTimeout(letGo);
      guard?.release();
      reject(error);
    });
    child.on("close", (code, exitSignal) => {
      clearTimeout(timer);
      clearTimeout(letGo);
      guard?.release();
      signal.removeEventListener("abort", kill);
      resolve({ output, exitCode: code, signal: exitSignal, timedOut });
    });
  });
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
