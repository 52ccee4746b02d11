/**
 * A Shell whose sandbox cannot start here (bwrap's trial on first use fails,
 * as where user namespaces are off): the command is asked for even with
 * `sandbox = "auto-allow"`, runs as without a sandbox, and the model, whose
 * tool description names the sandbox, is told it ran without it; so is a
 * background job started without it.
 */
import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallableTool } from "@kosong/core";
import type { ToolApproval } from "@kosong/soul";
import { FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { BackgroundJobs } from "../src/jobs/background-jobs.js";
import { CommandSandbox } from "../src/sandbox/command-sandbox.js";
import { shellTool } from "../src/tools/shell.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

/** A sandbox in `workspace` whose bwrap cannot start one (no user namespaces), with the notices it gives. */
async function failingSandbox(workspace: string): Promise<{ sandbox: CommandSandbox; notices: string[] }> {
  const bwrap = path.join(await tempDir(), "bwrap");
  await writeFile(bwrap, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
  await chmod(bwrap, 0o755);
  const notices: string[] = [];
  const sandbox = await CommandSandbox.open(bwrap, workspace, { mode: "auto-allow", network: false }, [], (reason) => notices.push(reason));
  return { sandbox, notices };
}

describe("Shell with a sandbox whose trial fails", () => {
  it("asks, runs the command, and tells the model it ran without the sandbox", async () => {
    const workspace = await tempDir();
    const { sandbox, notices } = await failingSandbox(workspace);
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

  it("starts a background job as without a sandbox and tells the model in the job's start result", async () => {
    const workspace = await tempDir();
    const { sandbox, notices } = await failingSandbox(workspace);
    const jobs = new BackgroundJobs({ dir: await tempDir(), graceMs: 300 });
    try {
      const shell = shellTool(await openWorkspace(workspace, new FileRegistry()), { PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox, jobs) as CallableTool;
      let asked = 0;
      const approval: ToolApproval = { request: () => (asked++, Promise.resolve({ approved: true })) };
      const result = await shell.call({ command: "echo made > made.txt; echo done", run_in_background: true }, { toolCallId: "c", signal: new AbortController().signal, approval });
      expect(asked).toBe(1);
      expect(result.is_error).toBe(false);
      expect(JSON.stringify(result.output)).toMatch(/Started background job .*this job runs without the sandbox/);
      const [job] = jobs.list();
      const output = await jobs.read(job!.id, { waitMs: 10_000 });
      expect(output?.text).toContain("done");
      expect(await readFile(path.join(workspace, "made.txt"), "utf8")).toBe("made\n");
      expect(notices).toHaveLength(1);
    } finally {
      await jobs.closeAll();
      await sandbox.close();
    }
  });
});
