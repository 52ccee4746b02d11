import { execFileSync } from "node:child_process";
import { chmod, mkdir, readFile, symlink, truncate, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import { maxAgentsFileBytes, maxAgentsFileChars } from "../src/project/agents-files.js";
import { loadProjectContext } from "../src/project/project-context.js";
import { buildSystemPrompt } from "../src/project/system-prompt.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("project context", () => {
  it("puts AGENTS.md from the repository root down to the working directory and the environment in context blocks", async () => {
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", "-b", "feature-x", repo]);
    await mkdir(path.join(repo, "pkg/app"), { recursive: true });
    await writeFile(path.join(repo, "AGENTS.md"), "Root rules.\n");
    await writeFile(path.join(repo, "pkg/app/AGENTS.md"), "App rules.\n");
    await writeFile(path.join(repo, "pkg/changed.txt"), "x");
    const cwd = path.join(repo, "pkg/app");
    const context = await loadProjectContext(cwd, new Date("2026-01-02T03:04:05Z"));
    expect(context.repoRoot).toBe(repo);
    expect(context.blocks.map((b) => b.name)).toEqual(["AGENTS.md", "pkg/app/AGENTS.md", "environment"]);
    const prompt = buildSystemPrompt(context);
    expect(prompt).toContain('<context name="AGENTS.md">\nRoot rules.\n</context>');
    expect(prompt.indexOf("Root rules.")).toBeLessThan(prompt.indexOf("App rules."));
    const environment = context.blocks.at(-1)!.content;
    expect(environment).toContain(`Working directory: ${cwd}`);
    expect(environment).toContain("Date: 2026-01-02");
    expect(environment).toContain("Git branch: feature-x");
    expect(environment).toMatch(/Git status:\n\?\? /);
    expect(await loadProjectContext(cwd)).toBe(context);
  });

  it("bounds the git status and works outside a repository", async () => {
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    for (let i = 0; i < 50; i++) await writeFile(path.join(repo, `f${i}.txt`), "x");
    const environment = (await loadProjectContext(repo)).blocks.at(-1)!.content;
    expect(environment.split("\n").filter((l) => l.startsWith("?? "))).toHaveLength(20);
    expect(environment).toContain("... and 30 more changed files");
    const plain = await tempDir();
    await writeFile(path.join(plain, "AGENTS.md"), "Plain.");
    const context = await loadProjectContext(plain);
    expect(context.repoRoot).toBeNull();
    expect(context.blocks.map((b) => b.name)).toEqual(["AGENTS.md", "environment"]);
    expect(context.blocks[1]!.content).not.toContain("Git branch");
  });

  it("runs no git process outside a repository, and git's own summary inside one", async () => {
    // A git first on PATH that notes each run and answers like git outside a repository.
    const bin = await tempDir();
    const runs = path.join(bin, "runs.log");
    await writeFile(path.join(bin, "git"), `#!/bin/sh\necho "$*" >> '${runs}'\necho "fatal: not a git repository" >&2\nexit 128\n`);
    await chmod(path.join(bin, "git"), 0o755);
    const ran = () => readFile(runs, "utf8").catch(() => "");
    const savedPath = process.env.PATH;
    process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ""}`;
    try {
      const plain = await tempDir();
      const context = await loadProjectContext(plain);
      expect(context.blocks.at(-1)!.content).not.toContain("Git branch");
      expect(await ran()).toBe("");
      const repo = await tempDir();
      await mkdir(path.join(repo, ".git"));
      await loadProjectContext(repo);
      expect(await ran()).toContain("config");
    } finally {
      process.env.PATH = savedPath;
    }
  });

  it("keeps the start of a huge AGENTS.md without reading it whole, and says it was cut", async () => {
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    const file = path.join(repo, "AGENTS.md");
    await writeFile(file, `Rules first.\n${"é".repeat(maxAgentsFileChars)}`);
    // Sparse, past the longest string Node can hold: a whole read could not even be decoded.
    const size = 600 * 1024 * 1024;
    await truncate(file, size);
    const [block] = (await loadProjectContext(repo)).blocks;
    expect(block!.name).toBe("AGENTS.md");
    expect(block!.content.startsWith(`Rules first.\n${"é".repeat(maxAgentsFileChars - "Rules first.\n".length)}`)).toBe(true);
    expect(block!.content.endsWith(`\n[AGENTS.md truncated: the file has ${size} bytes; its first ${maxAgentsFileChars} characters are kept]`)).toBe(true);
  });

  it("does not end the kept start of a cut AGENTS.md with a broken character when the cut splits one", async () => {
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    // 3-byte characters up to one byte short of the read's end, then a 4-byte one across it.
    const kept = "中".repeat(maxAgentsFileBytes / 3 - 1);
    await writeFile(path.join(repo, "AGENTS.md"), `${kept}😀${"x".repeat(100)}`);
    const [block] = (await loadProjectContext(repo)).blocks;
    expect(block!.content).not.toContain("\uFFFD");
    expect(block!.content.startsWith(`${kept}\n[AGENTS.md truncated:`)).toBe(true);
  });

  it("skips an AGENTS.md that is a FIFO, without waiting for a writer", async () => {
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    await writeFile(path.join(repo, "AGENTS.md"), "Root rules.");
    await mkdir(path.join(repo, "pkg"));
    execFileSync("mkfifo", [path.join(repo, "pkg", "AGENTS.md")]);
    const context = await loadProjectContext(path.join(repo, "pkg"));
    expect(context.blocks.map((b) => [b.name, b.content])).toEqual([["AGENTS.md", "Root rules."], ["environment", expect.any(String)]]);
  });

  it("skips an AGENTS.md that links out of the repository, and keeps one linked inside it", async () => {
    const outside = await tempDir();
    await writeFile(path.join(outside, "secret.md"), "Outside secret.");
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    await writeFile(path.join(repo, "CLAUDE.md"), "Root rules via a link.");
    await symlink(path.join(repo, "CLAUDE.md"), path.join(repo, "AGENTS.md"));
    await mkdir(path.join(repo, "pkg"));
    await symlink(path.join(outside, "secret.md"), path.join(repo, "pkg", "AGENTS.md"));
    const context = await loadProjectContext(path.join(repo, "pkg"));
    expect(context.blocks.map((b) => b.name)).toEqual(["AGENTS.md", "environment"]);
    expect(context.blocks[0]!.content).toBe("Root rules via a link.");
    expect(buildSystemPrompt(context)).not.toContain("Outside secret.");
    expect(context.skipped).toEqual([`${path.join("pkg", "AGENTS.md")} links out of the repository: it is not read into the system prompt`]);
  });

  it("tells the user at a session's start that an AGENTS.md linking out of the repository was not read", async () => {
    const outside = await tempDir();
    await writeFile(path.join(outside, "notes.md"), "Shared notes.");
    const repo = await tempDir();
    execFileSync("git", ["init", "-q", repo]);
    await symlink(path.join(outside, "notes.md"), path.join(repo, "AGENTS.md"));
    const home = await tempDir();
    const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, env);
    const warnings: string[] = [];
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    const agent = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd: repo, env, warn: (line) => warnings.push(line) });
    try {
      expect(warnings).toContain("AGENTS.md links out of the repository: it is not read into the system prompt");
      expect(warnings.join("\n")).not.toContain(outside);
    } finally {
      await agent.close();
    }
  });

  it("is only the agent's instructions without project context", () => {
    expect(buildSystemPrompt(null)).not.toContain("<context");
  });
});
