import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolReturnValue } from "@kosong/core";
import { FileRegistry } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { createAgentTools } from "../src/tools/agent-tools.js";
import { defaultOutputCap } from "../src/tools/cap-output.js";
import { openWorkspace } from "../src/tools/workspace.js";
import { useTempDirs } from "./temp-dir.js";
import { outputText as text, toolHarness } from "./tool-harness.js";

const tempDir = useTempDirs();
const setup = () => toolHarness(tempDir);

describe("the agent's file tools", () => {
  it("write, read with line numbers, edit, list, glob and grep inside the working directory", async () => {
    const { root, files, call } = await setup();
    expect((await call("WriteFile", { path: "src/app.ts", content: "const a = 1;\nconst b = 2;\n" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "src/app.ts"), "utf8")).toBe("const a = 1;\nconst b = 2;\n");
    expect(text(await call("ReadFile", { path: "src/app.ts" }))).toBe("1\tconst a = 1;\n2\tconst b = 2;");
    expect((await call("EditFile", { path: "src/app.ts", old_string: "b = 2", new_string: "b = 3" })).is_error).toBe(false);
    expect(await readFile(path.join(root, "src/app.ts"), "utf8")).toContain("const b = 3;");
    expect(text(await call("ListDir", {}))).toBe("src/");
    expect(text(await call("Glob", { pattern: "**/*.ts" }))).toBe("src/app.ts");
    expect(text(await call("Grep", { pattern: "b = \\d" }))).toBe("src/app.ts:2: const b = 3;");
    expect(files.recent().map((f) => [path.relative(root, f.path), f.kind])).toEqual([["src/app.ts", "write"]]);
  });

  it("counts lines in their brief as a person writes them (1 line, 2 lines)", async () => {
    const { call } = await setup();
    const brief = (result: ToolReturnValue) => JSON.stringify(result.display);
    expect(brief(await call("WriteFile", { path: "one.txt", content: "hi" }))).toContain("one.txt (1 line)");
    expect(brief(await call("ReadFile", { path: "one.txt" }))).toContain("one.txt (1 line)");
    expect(brief(await call("WriteFile", { path: "two.txt", content: "a\nb" }))).toContain("two.txt (2 lines)");
  });

  it("counts a written file's lines as ReadFile does: a final newline ends the last line, it starts no new one", async () => {
    const { call } = await setup();
    const written = await call("WriteFile", { path: "ended.txt", content: "a\nb\n" });
    expect(text(written)).toBe("Wrote ended.txt (2 lines).");
    expect(JSON.stringify((await call("ReadFile", { path: "ended.txt" })).display)).toContain("ended.txt (2 lines)");
    expect(text(await call("WriteFile", { path: "one.txt", content: "hi\n" }))).toBe("Wrote one.txt (1 line).");
    expect(text(await call("WriteFile", { path: "empty.txt", content: "" }))).toBe("Wrote empty.txt (0 lines).");
  });

  it("refuses paths that escape through .. or an absolute path", async () => {
    const { outside, call } = await setup();
    const escapes = [
      ["ReadFile", { path: "../secret.txt" }],
      ["ReadFile", { path: path.join(outside, "secret.txt") }],
      ["WriteFile", { path: "../evil.txt", content: "x" }],
      ["EditFile", { path: `../${path.basename(outside)}/secret.txt`, old_string: "top", new_string: "no" }],
      ["ListDir", { path: ".." }],
      ["Glob", { pattern: "../**/*.txt" }],
      ["Grep", { pattern: "secret", path: outside }],
    ] as const;
    for (const [name, args] of escapes) {
      const result = await call(name, args);
      expect(result.is_error, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(result.message).toMatch(/outside the working directory|leaves the search folder/);
    }
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("refuses symlinks that lead outside, and leaves them out of Glob and Grep", async () => {
    const { root, outside, call } = await setup();
    await symlink(path.join(outside, "secret.txt"), path.join(root, "link.txt"));
    await symlink(outside, path.join(root, "linkdir"));
    expect((await call("ReadFile", { path: "link.txt" })).message).toMatch(/outside the working directory/);
    expect((await call("ReadFile", { path: "linkdir/secret.txt" })).message).toMatch(/outside the working directory/);
    expect((await call("WriteFile", { path: "linkdir/new.txt", content: "x" })).message).toMatch(/outside the working directory/);
    expect(text(await call("Grep", { pattern: "secret" }))).toBe("(no match)");
    expect(text(await call("Glob", { pattern: "**/*.txt" }))).toBe("(no match)");
  });

  it("caps long outputs with a truncation marker and pages long files", async () => {
    const { call } = await setup();
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n");
    await call("WriteFile", { path: "big.txt", content: lines });
    const first = await call("ReadFile", { path: "big.txt" });
    expect(text(first).length).toBeLessThanOrEqual(defaultOutputCap + 200);
    expect(text(first)).toMatch(/\[output truncated: \d+ more characters, \d+ more lines not shown\]$/);
    expect(first.message).toContain("read on with line_offset=1001");
    const shell = await call("Shell", { command: "seq 1 100000" });
    expect(text(shell)).toMatch(/\[output truncated/);
  });

  it("reports EditFile misses and ambiguities to the model without writing", async () => {
    const { root, call } = await setup();
    await writeFile(path.join(root, "a.txt"), "x x\n");
    expect((await call("EditFile", { path: "a.txt", old_string: "y", new_string: "z" })).message).toMatch(/not found/);
    expect((await call("EditFile", { path: "a.txt", old_string: "x", new_string: "z" })).message).toMatch(/occurs 2 times/);
    expect((await call("EditFile", { path: "a.txt", old_string: "x", new_string: "z", replace_all: true })).is_error).toBe(false);
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("z z\n");
    expect((await call("ReadFile", { path: "missing.txt" })).message).toMatch(/not found/);
  });

  it("runs shell commands in the working directory and reports failures", async () => {
    const { root, call } = await setup();
    await mkdir(path.join(root, "sub"));
    expect(text(await call("Shell", { command: "pwd && ls" }))).toBe(`${root}\nsub\n`);
    const failed = await call("Shell", { command: "echo oops >&2; exit 3" });
    expect(failed.is_error).toBe(true);
    expect(failed.message).toContain("code 3");
    expect(text(failed)).toBe("oops\n");
    const slow = await call("Shell", { command: "sleep 5", timeout: 1 });
    expect(slow.message).toContain("killed after 1 s");
  });
});

describe("approval of the mutating tools", () => {
  it("asks before WriteFile, EditFile and Shell act, and does nothing when rejected", async () => {
    const { Approval } = await import("@kosong/soul");
    const root = await tempDir();
    const files = new FileRegistry();
    const tools = new Map(createAgentTools(await openWorkspace(root, files)).map((tool) => [tool.name, tool]));
    const approval = new Approval();
    const asked: string[] = [];
    let answer: "approve" | "reject" | "approve_for_session" = "reject";
    approval.subscribe((event) => {
      if (event.type !== "ApprovalRequest") return;
      asked.push(`${event.payload.sender}: ${event.payload.description}`);
      approval.respond(event.payload.id, answer, answer === "reject" ? "not now" : "");
    });
    const call = (name: string, args: Record<string, unknown>) => {
      const signal = new AbortController().signal;
      return tools.get(name)!.call(args, { toolCallId: name, signal, approval: approval.forCall(name, name, signal) });
    };
    const rejected = await call("WriteFile", { path: "a.txt", content: "x" });
    expect(rejected.is_error).toBe(true);
    expect(rejected.message).toContain("not now");
    expect(await readFile(path.join(root, "a.txt"), "utf8").catch(() => null)).toBeNull();
    expect(files.recent()).toEqual([]);
    answer = "approve_for_session";
    expect((await call("Shell", { command: "echo hi > b.txt" })).is_error).toBe(false);
    answer = "reject";
    // The session approval covers that exact command (it has a redirection), not another one.
    expect((await call("Shell", { command: "echo hi > b.txt" })).is_error).toBe(false);
    expect((await call("Shell", { command: "echo again >> b.txt" })).is_error).toBe(true);
    expect(await readFile(path.join(root, "b.txt"), "utf8")).toBe("hi\n");
    expect((await call("EditFile", { path: "b.txt", old_string: "hi", new_string: "yo" })).is_error).toBe(true);
    expect(asked).toEqual([
      "WriteFile: Write a.txt (1 character)\n@@ -0,0 +1,1 @@\n+x",
      "Shell: Run: echo hi > b.txt",
      "Shell: Run: echo again >> b.txt",
      "EditFile: Edit b.txt: replace 1 occurrence\n@@ -1,1 +1,1 @@\n-hi\n+yo",
    ]);
    expect((await call("ReadFile", { path: "b.txt" })).is_error).toBe(false);
  });

  it("refuse to act without an approval channel (outside a soul), and read-only tools still work", async () => {
    const root = await tempDir();
    await writeFile(path.join(root, "b.txt"), "hi\n");
    const tools = new Map(createAgentTools(await openWorkspace(root, new FileRegistry())).map((tool) => [tool.name, tool]));
    const call = (name: string, args: Record<string, unknown>) => tools.get(name)!.call(args, { toolCallId: name, signal: new AbortController().signal });
    for (const [name, args] of [
      ["WriteFile", { path: "a.txt", content: "x" }],
      ["EditFile", { path: "b.txt", old_string: "hi", new_string: "yo" }],
      ["Shell", { command: "echo x > c.txt" }],
    ] as const) {
      const result = await call(name, args);
      expect(result.is_error, name).toBe(true);
      expect(result.message, name).toContain("no approval channel");
    }
    expect((await readdir(root)).toSorted()).toEqual(["b.txt"]);
    expect(await readFile(path.join(root, "b.txt"), "utf8")).toBe("hi\n");
    expect((await call("ReadFile", { path: "b.txt" })).is_error).toBe(false);
  });
});
