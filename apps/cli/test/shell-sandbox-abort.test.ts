/**
 * A foreground Shell command in the bubblewrap sandbox ends whole when it is
 * aborted (Ctrl-C / Esc, a timeout, the crash watchdog): bwrap runs the
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

describe.skipIf(!bwrap)("Shell in the sandbox", () => {
  it("an abort at any moment of the sandbox's start ends its inner processes and the call returns an error", async () => {
    const workspace = await tempDir();
    const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "auto-allow", network: false }, []);
    try {
      const shell = shellTool(await openWorkspace(workspace, new FileRegistry()), { PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox) as CallableTool;
      const outcomes: string[] = [];
      for (let i = 0; i < 30; i++) {
        const marker = `kosong-fgleak-${process.pid}-${i}-${Date.now()}`;
        markers.push(marker);
        // A list, so that bash runs the program as its child (not exec'd in its place): the tree that outlived the abort.
        const command = `true; ${process.execPath} -e 'setInterval(() => {}, 1000)' ${marker}`;
        const controller = new AbortController();
        const call = shell.call({ command }, { toolCallId: `t${i}`, signal: controller.signal, approval: approveAll });
        // Aborted 0-9 ms after bwrap started (its arguments hold the marker): while it sets the sandbox up, or once the command runs.
        let returned = false;
        void call.finally(() => (returned = true));
        while (!returned && processesWith(marker).length === 0) await new Promise((r) => setImmediate(r));
        expect(returned).toBe(false);
        await new Promise((r) => setTimeout(r, i % 10));
        controller.abort();
        const ended = await endsOrHangs(call);
        const isError = ended === "ended" ? (await call).is_error : null;
        outcomes.push(`${i}: ${ended}, error ${isError}, ${processesWith(marker).length} left`);
        for (const pid of processesWith(marker)) process.kill(Number(pid), "SIGKILL");
      }
      expect(outcomes).toEqual(Array.from({ length: 30 }, (_, i) => `${i}: ended, error true, 0 left`));
    } finally {
      await sandbox.close();
    }
  }, 300_000);
});
