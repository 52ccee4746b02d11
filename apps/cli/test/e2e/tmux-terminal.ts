/**
 * A real terminal for the interactive tests: tmux runs the command in a
 * detached session on its own socket; keys go in with `send-keys`, the
 * screen comes out with `capture-pane`. tmux must be installed (`.ci/run`
 * installs it where it is missing); a test never installs it.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Makes sure tmux is installed: throws, saying how to install it, when it is not. */
export function ensureTmux(): void {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
  } catch {
    throw new Error("tmux is not installed: the interactive end-to-end tests need it (apt-get install tmux; .ci/run installs it)");
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A command running in a tmux pane. */
export class TmuxTerminal {
  private constructor(
    private readonly socket: string,
    private readonly name: string,
  ) {}

  /**
   * Starts `argv` in `cwd` with exactly `env` (plus TERM), in a pane of
   * `width` x `height`. When the command ends, `[exit N]` is printed and the
   * pane stays, so the last screen can still be read.
   */
  static start(argv: string[], options: { cwd: string; env: Record<string, string>; width?: number; height?: number }): TmuxTerminal {
    const socket = `kosong-e2e-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    const env = Object.entries({ TERM: "xterm-256color", ...options.env }).map(([k, v]) => quote(`${k}=${v}`));
    const command = `cd ${quote(options.cwd)} && env -i ${env.join(" ")} ${argv.map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
    execFileSync("tmux", ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", String(options.width ?? 110), "-y", String(options.height ?? 40), command]);
    execFileSync("tmux", ["-L", socket, "set-option", "-g", "history-limit", "5000"]);
    return new TmuxTerminal(socket, "main");
  }

  /** Sends tmux key names (`Enter`, `C-c`, `C-d`, `C-u`). */
  keys(...keys: string[]): void {
    execFileSync("tmux", ["-L", this.socket, "send-keys", "-t", this.name, ...keys]);
  }

  /** Types `text` literally. */
  type(text: string): void {
    execFileSync("tmux", ["-L", this.socket, "send-keys", "-t", this.name, "-l", text]);
  }

  /** Pastes `text` as a terminal does: bracketed (`ESC[200~`...`ESC[201~`) when the program asked for it. */
  paste(text: string): void {
    execFileSync("tmux", ["-L", this.socket, "load-buffer", "-b", "paste", "-"], { input: text });
    execFileSync("tmux", ["-L", this.socket, "paste-buffer", "-p", "-d", "-b", "paste", "-t", this.name]);
  }

  /** Types `text` and presses Enter. */
  line(text: string): void {
    this.type(text);
    this.keys("Enter");
  }

  /** The whole screen and its scrollback as plain text (`escapes`: with colour codes). */
  screen(escapes = false): string {
    const args = ["-L", this.socket, "capture-pane", "-p", "-J", "-S", "-5000", "-t", this.name];
    return execFileSync("tmux", escapes ? [...args, "-e"] : args, { encoding: "utf8" });
  }

  /** The visible screen only (no scrollback), as plain text. */
  visible(): string {
    return execFileSync("tmux", ["-L", this.socket, "capture-pane", "-p", "-t", this.name], { encoding: "utf8" });
  }

  /** Resizes the terminal (the program gets SIGWINCH). */
  resize(width: number, height: number): void {
    execFileSync("tmux", ["-L", this.socket, "resize-window", "-t", this.name, "-x", String(width), "-y", String(height)]);
  }

  /** The screen after the last occurrence of `marker` (what a step printed). */
  after(marker: string): string {
    const screen = this.screen();
    const at = screen.lastIndexOf(marker);
    return at < 0 ? "" : screen.slice(at + marker.length);
  }

  /**
   * Waits until the screen (after `from`, when given, else all of it)
   * matches `pattern`; returns that screen. Throws with the screen after
   * `timeoutMs`.
   */
  async waitFor(pattern: RegExp, options: { from?: string; timeoutMs?: number } = {}): Promise<string> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    for (;;) {
      const screen = options.from === undefined ? this.screen() : this.after(options.from);
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`screen never matched ${pattern}:\n${this.screen()}`);
      await sleep(100);
    }
  }

  /** The pid of the command the pane runs (the child of the pane's shell), from /proc. */
  commandPid(): number {
    const shell = execFileSync("tmux", ["-L", this.socket, "list-panes", "-t", this.name, "-F", "#{pane_pid}"], { encoding: "utf8" }).trim();
    const children = readFileSync(`/proc/${shell}/task/${shell}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
    if (children.length !== 1) throw new Error(`expected one command under the pane's shell ${shell}, found: ${children.join(", ") || "none"}`);
    return Number(children[0]);
  }

  /** Stops the tmux server of this terminal. */
  close(): void {
    try {
      execFileSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
    } catch {
      // already gone
    }
  }
}
