/**
 * An interactive agent in a pseudo-terminal (util-linux `script`) whose
 * output a headless xterm.js draws, as a user's terminal would: the bench
 * reads the screen the user would see, and types into it.
 *
 * The terminal answers what a terminal program asks of it (cursor position,
 * device attributes, modes: Codex's TUI waits for those answers, a bare pty
 * gives none). With `keyboardProtocol`, it also answers the keyboard-protocol
 * query as the terminals that speak the kitty keyboard protocol (kitty,
 * Ghostty, WezTerm, iTerm2 ...) do: with the flags the program pushed.
 * Without that answer Codex 0.171 keeps a typed `hi` and Enter in its
 * composer and sends nothing (seen here, every time; under tmux it submits);
 * a benchmark that types into Codex needs it. Keys typed here are the
 * legacy bytes those terminals send under the flags programs push (text as
 * itself, Enter as `\r`).
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import xterm from "@xterm/headless";
import { commandPid } from "./cli-process.ts";

/** A running agent in its terminal. */
export interface AgentTerminal {
  /** When the spawn began (`performance.now()`). */
  readonly startedAt: number;
  /** The agent's process (`script` execs the command), once it runs; null before. */
  pid(): number | null;
  /** The text the terminal shows, scrollback included, one line per row. */
  screen(): string;
  /** Everything the agent wrote so far, escape sequences included. */
  output(): string;
  /** Writes `keys` to the agent, as typed. */
  type(keys: string): void;
  /**
   * Resolves with the instant (`performance.now()`) `check` first held: checked now and each time the terminal has drawn
   * more output. Rejects after `timeoutMs` with `what` and the end of the screen.
   */
  until(check: () => boolean, what: string, timeoutMs?: number): Promise<number>;
  /** Ends the agent (SIGTERM, SIGKILL after 5 s) and resolves once its terminal closed. */
  stop(): Promise<void>;
  /** Resolves once the terminal closed. */
  readonly closed: Promise<void>;
}

/** Terminal size, what it answers, and where the agent runs. */
export interface TerminalOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  cols?: number;
  rows?: number;
  /** Answer the kitty keyboard protocol's query (default: false, as xterm, which ignores it). */
  keyboardProtocol?: boolean;
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** Starts `command args` in a pseudo-terminal drawn by a headless xterm.js; see {@link AgentTerminal}. */
export function startInTerminal(command: string, args: readonly string[], { env, cwd, cols = 100, rows = 30, keyboardProtocol = false }: TerminalOptions): AgentTerminal {
  const term = new xterm.Terminal({ cols, rows, allowProposedApi: true });
  const startedAt = performance.now();
  // exec'd, so that the process `script` starts is the agent's (its CPU time and memory are read).
  const child = spawn("script", ["-qefc", `stty cols ${cols} rows ${rows}; exec ${[command, ...args].map(quote).join(" ")}`, "/dev/null"], { env, cwd, stdio: ["pipe", "pipe", "ignore"] });
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  child.on("error", () => undefined);
  child.stdin.on("error", () => undefined);
  let output = "";
  let pid: number | null = null;
  const waiters = new Set<() => void>();
  const type = (keys: string) => void child.stdin.write(keys);
  term.onData(type);
  if (keyboardProtocol) {
    // The kitty keyboard protocol's flags: pushed, popped, and reported when asked.
    const flags: number[] = [];
    term.parser.registerCsiHandler({ prefix: ">", final: "u" }, (params) => (flags.push(Number(params[0] ?? 0)), true));
    term.parser.registerCsiHandler({ prefix: "<", final: "u" }, (params) => (flags.splice(-Math.max(1, Number(params[0] ?? 1))), true));
    term.parser.registerCsiHandler({ prefix: "?", final: "u" }, () => (type(`\x1b[?${flags.at(-1) ?? 0}u`), true));
  }
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    return lines.join("\n");
  };
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    term.write(chunk, () => {
      for (const waiter of [...waiters]) waiter();
    });
  });
  let exited = false;
  void closed.then(() => {
    exited = true;
    for (const waiter of [...waiters]) waiter();
    term.dispose();
  });
  return {
    startedAt,
    pid: () => (pid ??= child.pid === undefined ? null : commandPid(child.pid)),
    screen,
    output: () => output,
    type,
    until(check, what, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const done = () => {
          waiters.delete(test);
          clearTimeout(timer);
        };
        const fail = (why: string) => {
          done();
          reject(new Error(`${why} waiting for ${what}; the screen ends with ${JSON.stringify(screen().trimEnd().slice(-600))}`));
        };
        const test = () => {
          if (check()) {
            done();
            resolve(performance.now());
          } else if (exited) fail("the agent's terminal closed");
        };
        const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
        waiters.add(test);
        test();
      });
    },
    async stop() {
      const agent = pid ?? (child.pid === undefined ? null : commandPid(child.pid));
      try {
        process.kill(agent ?? child.pid!, "SIGTERM");
      } catch {
        // Gone already.
      }
      const timer = setTimeout(() => {
        for (const target of [agent, child.pid]) {
          try {
            if (target) process.kill(target, "SIGKILL");
          } catch {
            // Gone already.
          }
        }
      }, 5_000);
      await closed;
      clearTimeout(timer);
    },
    closed,
  };
}
