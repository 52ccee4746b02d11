/**
 * A Shell whose sandbox cannot start here (bwrap's trial on first use fails,
 * as where user namespaces are off): the command is asked for even with
 * `sandbox = "auto-allow"`, runs as without a sandbox, and the model, whose
 * tool description names the sandbox, is told it ran without it.
 */
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallableTool } from "@kosong/core";
import type { ToolApproval } from "@kosong/soul";
import { FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { CommandSandbox } from "../src/sandbox/command-sandbox.js";
import { shellTool } from "../src/tools/shell.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("Shell with a sandbox whose trial fails", () => {
  it("asks, runs the command, and tells the model it ran without the sandbox", async () => {
    const workspace = await tempDir();
    const bin = await tempDir();
    const bwrap = path.join(bin, "bwrap");
    await writeFile(bwrap, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    await chmod(bwrap, 0o755);
    const notices: string[] = [];
    const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "auto-allow", network: false }, [], (reason) => notices.push(reason));
    try {
      const shell = shellTool(await openWorkspace(workspace, new FileRegistry()), { PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox) as CallableTool;
      expect(shell.definition.description).toContain("Commands run in a sandbox");
      let asked = 0;
      const approval: ToolApproval = { request: () => (asked++, Promise.resolve({ approved: true })) };
      const result = await shell.call({ command: "echo made > made.txt; echo done" }, { toolCallId: "c", signal: new AbortController().signal, approval });
      expect(asked).toBe(1);
      expect(result.is_error).toBe(false);
      expect(await readFile(path.join(workspace, "made.txt"), "utf8")).toBe("made\n");
      expect(JSON.stringify(result.output)).toContain("this command ran without the sandbox");
      expect(notices).toHaveLength(1);
    } finally {
      await sandbox.close();
    }
  });
});
