/**
 * A foreground Shell command in the bubblewrap sandbox ends whole when it is
 * aborted (Ctrl-C / Esc; a timeout takes the same path): bwrap runs the
 * command in its own pid namespace under a second bwrap, and an abort that
 * comes while the sandbox is still being set up must end that one too, and
 * the call must return.
 */
import type { CallableTool } from "@kosong/core";
import { approveAll, FileRegistry } from "@kosong/soul";
import { afterEach, describe, expect, it } from "vitest";
import { CommandSandbox } from "../src/sandbox/command-sandbox.js";
import { shellTool } from "../src/tools/shell.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { processesWith } from "./e2e/dev-server.js";
import { endsOrHangs } from "./ends-or-hangs.js";
import { ensureBubblewrap } from "./ensure-bubblewrap.js";
import { useTempDirs } from "./temp-dir.js";

// Under /var/tmp: a sandboxed command has a private /tmp.
const tempDir = useTempDirs("/var/tmp");
const bwrap = ensureBubblewrap();
const markers: string[] = [];

afterEach(() => {
  for (const marker of markers.splice(0)) for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
});

/**
 * Calls `shell` with a command that runs until killed, aborts it `abortAfterMs`
 * after bwrap was spawned (null: at once, before it is spawned), and says how
 * that went: whether the call returned, with an error, and how many of its
 * processes are left.
 */
async function abortedCall(shell: CallableTool, round: string, abortAfterMs: number | null): Promise<string> {
  const marker = `kosong-fgleak-${process.pid}-${round}-${Date.now()}`;
  markers.push(marker);
  // A list, so that bash runs the program as its child (not exec'd in its place): the tree that outlived the abort.
  const command = `true; ${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker}`;
  const controller = new AbortController();
  const call = shell.call({ command }, { toolCallId: round, signal: controller.signal, approval: approveAll });
  // Without a file journal the call spawns bwrap within this tick's microtasks: any timer runs after that.
  if (abortAfterMs !== null) await new Promise((r) => setTimeout(r, abortAfterMs));
  controller.abort();
  const ended = await endsOrHangs(call);
  const isError = ended === "ended" ? (await call).is_error : null;
  const left = processesWith(marker).length;
  for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
  return `${round}: ${ended}, error ${isError}, ${left} left`;
}

describe("Shell", () => {
  it("an aborted call returns even when a process out of its tree still holds its output", async () => {
    const workspace = await tempDir();
    const shell = shellTool(await openWorkspace(workspace, new FileRegistry()), { PATH: process.env.PATH ?? "/usr/bin:/bin" }) as CallableTool;
    const marker = `kosong-fgleak-${process.pid}-orphan-${Date.now()}`;
    markers.push(marker);
    // The subshell ends at once: its child, in a session of its own, is reparented away from the command's tree with the output pipe.
    const command = `(setsid ${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker} &); sleep 600`;
    const controller = new AbortController();
    const call = shell.call({ command }, { toolCallId: "orphan", signal: controller.signal, approval: approveAll });
    while (processesWith(marker).length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const ended = await endsOrHangs(call);
    expect([ended, ended === "ended" ? (await call).is_error : null]).toEqual(["ended", true]);
  }, 30_000);
});

describe.skipIf(!bwrap)("Shell in the sandbox", () => {
  async function sandboxedShell(): Promise<{ shell: CallableTool; sandbox: CommandSandbox }> {
    const workspace = await tempDir();
    const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "auto-allow", network: false }, []);
    return { shell: shellTool(await openWorkspace(workspace, new FileRegistry()), { PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox) as CallableTool, sandbox };
  }

  it("an abort 0-9 ms into the sandbox's start ends its inner processes and the call returns an error", async () => {
    const { shell, sandbox } = await sandboxedShell();
    try {
      // The window (bwrap's first milliseconds) is hit in a few rounds of a hundred on the code before the fix.
      const rounds = 200;
      const outcomes: string[] = [];
      for (let i = 0; i < rounds; i++) outcomes.push(await abortedCall(shell, `r${i}`, i % 10));
      expect(outcomes).toEqual(Array.from({ length: rounds }, (_, i) => `r${i}: ended, error true, 0 left`));
    } finally {
      await sandbox.close();
    }
  }, 600_000);

  it("an abort that comes before the command is spawned: nothing is left running and the call returns an error", async () => {
    const { shell, sandbox } = await sandboxedShell();
    try {
      expect(await abortedCall(shell, "early", null)).toBe("early: ended, error true, 0 left");
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});
