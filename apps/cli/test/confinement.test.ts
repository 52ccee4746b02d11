/**
 * Workspace confinement of the file tools against hostile workspaces: dangling
 * symlinks (absolute, relative, chained, in a parent folder, in append mode),
 * a folder swapped for a link while an approval waits, hard links to files
 * outside, FIFOs and sockets. Real tools on real files.
 */
import { execFileSync } from "node:child_process";
import { constants, openSync, closeSync } from "node:fs";
import { link, mkdir, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import type { ToolReturnValue } from "@kosong/core";
import { Approval, FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { createAgentTools } from "../src/tools/agent-tools.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";
import { outputText, toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();

const refusedOutside = (result: ToolReturnValue) => {
  expect(result.is_error, JSON.stringify(result)).toBe(true);
  expect(result.message).toMatch(/outside the working directory/);
};

describe("dangling symlinks cannot lead a write out of the working directory", () => {
  it("refuses WriteFile through a dangling link with an absolute or a relative target, in overwrite and append mode", async () => {
    const { root, outside, call } = await toolHarness(tempDir);
    await symlink(path.join(outside, "abs.txt"), path.join(root, "abs.txt"));
    await symlink(`../${path.basename(outside)}/rel.txt`, path.join(root, "rel.txt"));
    for (const file of ["abs.txt", "rel.txt"]) {
      refusedOutside(await call("WriteFile", { path: file, content: "planted" }));
      refusedOutside(await call("WriteFile", { path: file, content: "planted", mode: "append" }));
    }
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
  });

  it("refuses a chain of links that ends outside, and a dangling link in a parent folder", async () => {
    const { root, outside, call } = await toolHarness(tempDir);
    await symlink("b.txt", path.join(root, "a.txt"));
    await symlink(path.join(outside, "chained.txt"), path.join(root, "b.txt"));
    await symlink(path.join(outside, "newdir"), path.join(root, "docs"));
    await symlink(outside, path.join(root, "out"));
    refusedOutside(await call("WriteFile", { path: "a.txt", content: "planted" }));
    refusedOutside(await call("WriteFile", { path: "docs/notes.txt", content: "planted" }));
    refusedOutside(await call("WriteFile", { path: "out/deep/er/notes.txt", content: "planted", mode: "append" }));
    refusedOutside(await call("EditFile", { path: "out/secret.txt", old_string: "top", new_string: "no" }));
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("still follows links that stay inside, and creates a dangling inside link's target and its folders", async () => {
    const { root, call } = await toolHarness(tempDir);
    await writeFile(path.join(root, "real.txt"), "one\n");
    await symlink("real.txt", path.join(root, "alias.txt"));
    await mkdir(path.join(root, "lib"));
    await symlink("lib", path.join(root, "src"));
    await symlink("made/later.txt", path.join(root, "pending.txt"));
    expect(outputText(await call("ReadFile", { path: "alias.txt" }))).toBe("1\tone");
    expect((await call("EditFile", { path: "alias.txt", old_string: "one", new_string: "two" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "real.txt"), "utf8")).toBe("two\n");
    expect((await call("WriteFile", { path: "src/a/b.ts", content: "x" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "lib/a/b.ts"), "utf8")).toBe("x");
    expect((await call("WriteFile", { path: "pending.txt", content: "y", mode: "append" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "made/later.txt"), "utf8")).toBe("y");
    expect(outputText(await call("ListDir", { path: "src" }))).toBe("a/");
  });

  it("refuses ListDir of a folder link to outside, direct or on the way", async () => {
    const { root, outside, call } = await toolHarness(tempDir);
    await symlink(outside, path.join(root, "out"));
    await mkdir(path.join(outside, "sub"));
    refusedOutside(await call("ListDir", { path: "out" }));
    refusedOutside(await call("ListDir", { path: "out/sub" }));
  });
});

describe("a path swapped for a link while the approval waits", () => {
  async function withSwappingApproval(swap: (root: string, outside: string) => Promise<void>) {
    const root = await tempDir();
    const outside = await tempDir();
    const tools = new Map(createAgentTools(await openWorkspace(root, new FileRegistry())).map((tool) => [tool.name, tool]));
    const approval = new Approval();
    const asked: string[] = [];
    approval.subscribe((event) => {
      if (event.type !== "ApprovalRequest") return;
      asked.push(event.payload.description);
      // The user reads the prompt; meanwhile the path is swapped; then the user says yes.
      void swap(root, outside).then(() => approval.respond(event.payload.id, "approve"));
    });
    const call = (name: string, args: Record<string, unknown>) => {
      const signal = new AbortController().signal;
      return tools.get(name)!.call(args, { toolCallId: name, signal, approval: approval.forCall(name, name, signal) });
    };
    return { root, outside, call, asked };
  }

  it("WriteFile re-checks after the approval: a folder swapped for a link to outside is refused", async () => {
    const { root, outside, call, asked } = await withSwappingApproval(async (root, outside) => {
      await rename(path.join(root, "notes"), path.join(root, "notes-old"));
      await symlink(outside, path.join(root, "notes"));
    });
    await mkdir(path.join(root, "notes"));
    refusedOutside(await call("WriteFile", { path: "notes/todo.txt", content: "buy milk" }));
    expect(asked).toEqual(["Write notes/todo.txt (8 characters)\n@@ -0,0 +1,1 @@\n+buy milk"]);
    expect(await readdir(outside)).toEqual([]);
  });

  it("EditFile re-checks after the approval: a file swapped for a link to an outside file of the same text is not written", async () => {
    const { root, outside, call } = await withSwappingApproval(async (root, outside) => {
      await rename(path.join(root, "a.txt"), path.join(root, "a-old.txt"));
      await symlink(path.join(outside, "a.txt"), path.join(root, "a.txt"));
    });
    await writeFile(path.join(root, "a.txt"), "top secret\n");
    await writeFile(path.join(outside, "a.txt"), "top secret\n");
    refusedOutside(await call("EditFile", { path: "a.txt", old_string: "top", new_string: "no" }));
    expect(await readFile(path.join(outside, "a.txt"), "utf8")).toBe("top secret\n");
  });
});

describe("hard links", () => {
  it("refuses to read or write a file with a second name (here: a file outside), with a clear error", async () => {
    const { root, outside, call } = await toolHarness(tempDir);
    await link(path.join(outside, "secret.txt"), path.join(root, "hard.txt"));
    for (const [name, args] of [
      ["ReadFile", { path: "hard.txt" }],
      ["WriteFile", { path: "hard.txt", content: "overwritten" }],
      ["WriteFile", { path: "hard.txt", content: "more", mode: "append" }],
      ["EditFile", { path: "hard.txt", old_string: "top", new_string: "no" }],
    ] as const) {
      const result = await call(name, args);
      expect(result.is_error, name).toBe(true);
      expect(result.message).toMatch(/hard link/);
      expect(outputText(result)).not.toContain("top secret");
    }
    expect(outputText(await call("Grep", { pattern: "secret" }))).toBe("(no match)");
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });
});

describe("FIFOs, sockets and devices", () => {
  it("refuses a FIFO at once (no tool blocks on it), an abort still ends the call, and Grep passes it by", async () => {
    const { root, call } = await toolHarness(tempDir);
    const fifo = path.join(root, "pipe");
    execFileSync("mkfifo", [fifo]);
    await writeFile(path.join(root, "note.txt"), "a pipe is near\n");
    try {
      const abort = new AbortController();
      const aborter = setTimeout(() => abort.abort(), 200);
      const never = new Promise<"blocked">((resolve) => setTimeout(() => resolve("blocked"), 5_000).unref());
      const read = await Promise.race([call("ReadFile", { path: "pipe" }, abort.signal), never]);
      clearTimeout(aborter);
      expect(read).not.toBe("blocked");
      expect((read as ToolReturnValue).message).toMatch(/is a FIFO, not a regular file/);
      for (const [name, args] of [
        ["WriteFile", { path: "pipe", content: "x" }],
        ["WriteFile", { path: "pipe", content: "x", mode: "append" }],
        ["EditFile", { path: "pipe", old_string: "a", new_string: "b" }],
      ] as const) {
        const result = await Promise.race([call(name, args), never]);
        expect((result as ToolReturnValue).message, name).toMatch(/FIFO/);
      }
      expect(outputText((await Promise.race([call("Grep", { pattern: "pipe" }), never])) as ToolReturnValue)).toBe("note.txt:1: a pipe is near");
    } finally {
      // On code that blocked in open(2), a writer releases the stuck reader.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // no reader waiting: nothing blocked
      }
    }
  });

  it("refuses a socket, and a device reached through a link", async () => {
    const { root, call } = await toolHarness(tempDir);
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(root, "sock"), resolve));
    try {
      expect((await call("ReadFile", { path: "sock" })).message).toMatch(/is a socket/);
      expect((await call("WriteFile", { path: "sock", content: "x" })).message).toMatch(/is a socket/);
    } finally {
      server.close();
    }
    await symlink("/dev/zero", path.join(root, "zero"));
    expect((await call("ReadFile", { path: "zero" })).message).toMatch(/outside the working directory/);
  });

  it("answers a path with a NUL byte, or a link loop, with an error result", async () => {
    const { root, call } = await toolHarness(tempDir);
    await symlink("loop-b", path.join(root, "loop-a"));
    await symlink("loop-a", path.join(root, "loop-b"));
    expect((await call("ReadFile", { path: "a\0b" })).message).toMatch(/invalid path/);
    expect((await call("WriteFile", { path: "loop-a", content: "x" })).message).toMatch(/too many symlinks/);
    expect((await call("WriteFile", { path: "loop-a/inner.txt", content: "x" })).message).toMatch(/too many symlinks/);
  });
});
