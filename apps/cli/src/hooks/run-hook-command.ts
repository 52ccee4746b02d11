/**
 * Runs one hook command: `bash -c command` in the workspace (inside the
 * Shell sandbox when it is on), with the Shell's scrubbed environment, the
 * event as JSON on stdin, a time limit that kills its whole process group,
 * and stdout and stderr capped (the rest is read and dropped).
 */
import { spawn } from "node:child_process";
import type { CommandSandbox } from "../sandbox/command-sandbox.js";

/** Bytes kept of a hook's stdout and of its stderr. */
export const hookOutputCap = 64 * 1024;

/** How a hook command ended. */
export type HookRun =
  | { kind: "exited"; exitCode: number | null; signal: string | null; stdout: string; stderr: string; truncated: boolean }
  | { kind: "timed_out" }
  | { kind: "failed"; error: string };

/** Where and how hook commands run. */
export interface HookCommandRunner {
  cwd: string;
  /** The environment (the Shell tool's, plus the project-dir variables). */
  env: Record<string, string>;
  sandbox: CommandSandbox | null;
}

/** Runs `command` with `input` on its stdin for at most `timeoutMs`. Never rejects. */
export async function runHookCommand(runner: HookCommandRunner, command: string, input: string, timeoutMs: number): Promise<HookRun> {
  // The sandbox's first use tries it; one that cannot start here leaves the hook as without a sandbox.
  const sandbox = (await runner.sandbox?.usable()) ?? null;
  return new Promise((resolve) => {
    const spawned = sandbox ? sandbox.wrapShell(command, runner.env) : { file: "bash", args: ["-c", command], env: runner.env };
    const child = spawn(spawned.file, spawned.args, { cwd: runner.cwd, env: spawned.env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    const out = capped();
    const err = capped();
    child.stdout.on("data", out.add);
    child.stderr.on("data", err.add);
    // A hook that does not read its stdin (or exits first) must not fail the write.
    child.stdin.on("error", () => undefined);
    child.stdin.end(input);
    let done = false;
    const finish = (run: HookRun): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(run);
    };
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      finish({ kind: "timed_out" });
    }, timeoutMs);
    child.on("error", (error) => finish({ kind: "failed", error: error.message }));
    child.on("close", (code, signal) => finish({ kind: "exited", exitCode: code, signal, stdout: out.text(), stderr: err.text(), truncated: out.truncated() || err.truncated() }));
  });
}

function capped() {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  return {
    add: (chunk: Buffer) => {
      if (size >= hookOutputCap) {
        over = true;
        return;
      }
      const take = chunk.subarray(0, hookOutputCap - size);
      over ||= take.length < chunk.length;
      chunks.push(take);
      size += take.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    truncated: () => over,
  };
}
