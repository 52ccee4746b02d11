/**
 * The editor's file system and terminal as plain functions for an agent's
 * tools: `fs/read_text_file`, `fs/write_text_file` and `terminal/*`, each
 * present only when the editor said in `initialize` that it offers it.
 */
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";

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
  };
}

async function runInTerminal(client: AgentContext, sessionId: string, run: ClientCommand): Promise<ClientCommandResult> {
  const terminal = await client.createTerminal({ sessionId, command: "bash", args: ["-c", run.command], cwd: run.cwd, outputByteLimit: run.outputByteLimit ?? 100_000 });
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
