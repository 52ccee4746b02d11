/**
 * The editor's file system and terminal as plain functions for an agent's
 * tools: `fs/read_text_file`, `fs/write_text_file` and `terminal/*`, each
 * present only when the editor said in `initialize` that it offers it; and
 * a choice put to the user (`session/request_permission`, always there).
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import { askChoice, type ClientChoice } from "./client-choice.js";

/** A command to run in the editor's terminal. */
export interface ClientCommand {
  /** Run with `bash -c`. */
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Aborting kills the command. */
  signal: AbortSignal;
  /** Output kept by the editor (default 100 kB). */
  outputByteLimit?: number;
  /**
   * The command's whole environment. Sent as the terminal's `env`, and the
   * command runs behind a bash prelude that unsets every other exported
   * variable, so none of the editor's own (its API keys, tokens) reach it
   * whether the editor adds `env` to its environment or replaces it.
   * Absent: the editor's environment, as it chooses.
   */
  env?: Record<string, string>;
}

/** How a command in the editor's terminal ended. */
export interface ClientCommandResult {
  output: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

/** The editor's services, null where it does not offer them. */
export interface ClientBridge {
  readTextFile: ((path: string) => Promise<string>) | null;
  writeTextFile: ((path: string, content: string) => Promise<void>) | null;
  runCommand: ((command: ClientCommand) => Promise<ClientCommandResult>) | null;
  /**
   * Asks the user to pick one option, as a `session/request_permission`
   * whose options are the choice's (every client answers those); resolves
   * to the index chosen, or null (cancelled, failed). See `client-choice.ts`.
   */
  choose(choice: ClientChoice): Promise<number | null>;
}

/**
 * The bridge of a client with `capabilities`, for the session whose id
 * `sessionId()` returns (known once the host has made the session; the
 * tools only run after that).
 */
export function clientBridge(client: AgentContext, sessionId: () => string, capabilities: ClientCapabilities | undefined): ClientBridge {
  const fs = capabilities?.fs;
  return {
    readTextFile: fs?.readTextFile ? async (path) => (await client.request("fs/read_text_file", { sessionId: sessionId(), path })).content : null,
    writeTextFile: fs?.writeTextFile
      ? async (path, content) => {
          await client.request("fs/write_text_file", { sessionId: sessionId(), path, content });
        }
      : null,
    runCommand: capabilities?.terminal ? (command) => runInTerminal(client, sessionId(), command) : null,
    choose: (choice) => askChoice(client, sessionId(), choice),
  };
}

async function runInTerminal(client: AgentContext, sessionId: string, run: ClientCommand): Promise<ClientCommandResult> {
  const args = run.env ? ["-c", onlyVariablesScript(Object.keys(run.env)), "kosong-shell", run.command] : ["-c", run.command];
  const env = run.env && Object.entries(run.env).map(([name, value]) => ({ name, value }));
  const terminal = await client.createTerminal({ sessionId, command: "bash", args, cwd: run.cwd, outputByteLimit: run.outputByteLimit ?? 100_000, ...(env && { env }) });
  let timedOut = false;
  const kill = () => void terminal.kill().catch(() => undefined);
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, run.timeoutMs);
  run.signal.addEventListener("abort", kill, { once: true });
  try {
    const exit = await terminal.waitForExit();
    const { output } = await terminal.currentOutput();
    return { output, exitCode: exit.exitCode ?? null, signal: exit.signal ?? null, timedOut };
  } finally {
    clearTimeout(timer);
    run.signal.removeEventListener("abort", kill);
    await terminal.release().catch(() => undefined);
  }
}

/** A shell name (other names cannot be exported by bash, so there is nothing to keep). */
const shellName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A bash script that unsets every exported variable but `names`, then runs
 * its first argument with `bash -c` in that environment.
 */
function onlyVariablesScript(names: string[]): string {
  const keep = names.filter((name) => shellName.test(name)).join("|") || "''";
  return `for name in $(compgen -e); do case "$name" in ${keep}) ;; *) unset "$name" 2>/dev/null ;; esac; done; exec bash -c "$1"`;
}
