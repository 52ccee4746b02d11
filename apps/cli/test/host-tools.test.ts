/**
 * The file tools and Shell with a host (an editor over ACP) that offers its
 * file system and terminal: the host only ever gets paths that kosong's
 * confined walk resolved, opened and checked (after the approval too), and
 * commands that were approved, with kosong's scrubbed environment. The host
 * here is a real one over real files, recording what it was asked.
 */
import { spawn } from "node:child_process";
import { link, mkdir, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { CallableTool, ToolReturnValue } from "@kosong/core";
import { Approval, FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { createAgentTools } from "../src/tools/agent-tools.js";
import { type HostCommand, openWorkspace, type WorkspaceHost } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";
import { outputText } from "./tool-harness.js";

const tempDir = useTempDirs();

/** An editor over the real disk that records every path and command it is given. */
function recordingHost() {
  const asked = { reads: [] as string[], writes: [] as string[], commands: [] as HostCommand[] };
  const host: WorkspaceHost = {
    readTextFile: async (file) => {
      asked.reads.push(file);
      return readFile(file, "utf8");
    },
    writeTextFile: async (file, content) => {
      asked.writes.push(file);
      await writeFile(file, content);
    },
    runCommand: (command) =>
      new Promise((resolve) => {
        asked.commands.push(command);
        const child = spawn("bash", ["-c", command.command], { cwd: command.cwd, env: command.env });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
        child.on("close", (exitCode, signal) => resolve({ output, exitCode, signal, timedOut: false }));
      }),
  };
  return { host, asked };
}

/** Tools on a fresh workspace with a recording host; `onApproval` answers approval requests (default: approve). */
async function hostedTools(onApproval?: (root: string, outside: string) => Promise<void>) {
  const root = await tempDir();
  const outside = await tempDir();
  await writeFile(path.join(outside, "secret.txt"), "top secret\n");
  const { host, asked } = recordingHost();
  const shellEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", KEPT: "kept-value" };
  const tools = new Map(createAgentTools(await openWorkspace(root, new FileRegistry(), host), { shellEnv }).map((tool) => [tool.name, tool]));
  const approval = new Approval();
  const requests: Array<{ description: string; scope: string | undefined }> = [];
  approval.subscribe((event) => {
    if (event.type !== "ApprovalRequest") return;
    requests.push({ description: event.payload.description, scope: event.payload.scope });
    void (onApproval?.(root, outside) ?? Promise.resolve()).then(() => approval.respond(event.payload.id, "approve"));
  });
  const call = (name: string, args: Record<string, unknown>): Promise<ToolReturnValue> => {
    const signal = new AbortController().signal;
    return (tools.get(name) as CallableTool).call(args, { toolCallId: name, signal, approval: approval.forCall(name, name, signal) });
  };
  return { root, outside, asked, requests, call };
}

const refused = (result: ToolReturnValue, pattern: RegExp) => {
  expect(result.is_error, JSON.stringify(result)).toBe(true);
  expect(result.message).toMatch(pattern);
};

describe("tools through a host keep the workspace confinement", () => {
  it("reads and writes inside through the host, by the real path, appending to the host's text", async () => {
    const { root, asked, call } = await hostedTools();
    await mkdir(path.join(root, "docs"));
    await symlink("docs", path.join(root, "link-to-docs"));
    await writeFile(path.join(root, "docs", "a.txt"), "one\n");
    expect(outputText(await call("ReadFile", { path: "link-to-docs/a.txt" }))).toContain("one");
    expect((await call("WriteFile", { path: "link-to-docs/a.txt", content: "two\n", mode: "append" })).is_error).toBe(false);
    expect((await call("EditFile", { path: "docs/a.txt", old_string: "two", new_string: "three" })).is_error).toBe(false);
    expect((await call("WriteFile", { path: "new/dir/b.txt", content: "created" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "docs", "a.txt"), "utf8")).toBe("one\nthree\n");
    expect(await readFile(path.join(root, "new", "dir", "b.txt"), "utf8")).toBe("created");
    const real = path.join(root, "docs", "a.txt");
    expect(asked.reads.every((file) => file === real)).toBe(true);
    expect(asked.writes).toEqual([real, real, path.join(root, "new", "dir", "b.txt")]);
  });

  it("never hands the host a link out, a dangling link out, a hard link or a path outside", async () => {
    const { root, outside, asked, call } = await hostedTools();
    await symlink(path.join(outside, "secret.txt"), path.join(root, "leak.txt"));
    await symlink(path.join(outside, "planted.txt"), path.join(root, "dangling.txt"));
    await link(path.join(outside, "secret.txt"), path.join(root, "hard.txt"));
    refused(await call("ReadFile", { path: "leak.txt" }), /outside the working directory/);
    refused(await call("ReadFile", { path: path.join(outside, "secret.txt") }), /outside the working directory/);
    refused(await call("ReadFile", { path: "hard.txt" }), /hard links/);
    refused(await call("WriteFile", { path: "dangling.txt", content: "x" }), /outside the working directory/);
    refused(await call("WriteFile", { path: "dangling.txt", content: "x", mode: "append" }), /outside the working directory/);
    refused(await call("EditFile", { path: "hard.txt", old_string: "top", new_string: "no" }), /hard links/);
    expect(asked.reads).toEqual([]);
    expect(asked.writes).toEqual([]);
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("checks again after the approval: a folder swapped for a link meanwhile is refused before the host is asked", async () => {
    const { root, outside, asked, call } = await hostedTools(async (root, outside) => {
      await rename(path.join(root, "notes"), path.join(root, "notes-old"));
      await symlink(outside, path.join(root, "notes"));
    });
    await mkdir(path.join(root, "notes"));
    refused(await call("WriteFile", { path: "notes/todo.txt", content: "escaped" }), /outside the working directory/);
    expect(asked.writes).toEqual([]);
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
  });

  it("runs an approved Shell command in the host's terminal with the scrubbed environment and the approval's scope", async () => {
    const { root, asked, requests, call } = await hostedTools();
    process.env.HOST_TOOLS_TEST_TOKEN = "must-not-leak";
    try {
      const result = await call("Shell", { command: "git status; env" });
      expect(outputText(result)).toContain("KEPT=kept-value");
      expect(outputText(result)).not.toContain("must-not-leak");
    } finally {
      delete process.env.HOST_TOOLS_TEST_TOKEN;
    }
    expect(asked.commands.map(({ command, cwd, env }) => ({ command, cwd, env }))).toEqual([
      { command: "git status; env", cwd: root, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", KEPT: "kept-value" } },
    ]);
    expect(requests).toEqual([{ description: "Run: git status; env", scope: "this exact command" }]);
  });
});
