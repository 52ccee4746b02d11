/**
 * Claude Code's `.claude/settings.json` and `settings.local.json` give a
 * start both hooks and permission rules: on a real session start in a
 * trusted workspace each file is read from disk once, and both readers get
 * what they got before (the rule is used, a damaged file is named once by
 * each). `open` is wrapped only to count the calls; it opens the real
 * files. A workspace's settings file that is huge or a FIFO is not read:
 * both readers say so, and the start does not wait.
 */
import * as fs from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, open: vi.fn(actual.open) };
});

afterEach(() => vi.mocked(fs.open).mockClear());

const tempDir = useTempDirs();

/** A trusted workspace's `.claude` settings files, written by `write`; then a session started there, with the warnings it gave. */
async function startWith(write: (files: { shared: string; local: string }) => Promise<void>) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(path.join(cwd, ".claude"), { recursive: true });
  const files = { shared: path.join(cwd, ".claude", "settings.json"), local: path.join(cwd, ".claude", "settings.local.json") };
  await write(files);
  const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
  const settings = await resolveSettings({ provider: "scripted", script: "unused", trustWorkspace: true }, env);
  const warnings: string[] = [];
  const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
  vi.mocked(fs.open).mockClear();
  const agent = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd, env, warn: (line) => warnings.push(line) });
  return { ...files, agent, warnings };
}

describe("a start reads Claude Code's settings files once", () => {
  it("each .claude settings file is read once for hooks and permission rules, and both still act and report", async () => {
    const { shared, local, agent, warnings } = await startWith(async ({ shared, local }) => {
      await writeFile(shared, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "true" }] }] }, permissions: { allow: ["Shell(echo project-rule:*)"] } }));
      await writeFile(local, "{ not json");
    });
    try {
      const reads = (file: string) => vi.mocked(fs.open).mock.calls.filter(([p]) => p === file).length;
      expect(reads(shared)).toBe(1);
      expect(reads(local)).toBe(1);
      expect(agent.permissionRules.rules.map((r) => [r.text, r.level])).toContainEqual(["Shell(echo project-rule:*)", "project"]);
      expect(warnings.filter((w) => w.startsWith(`${local} is not valid JSON, its hooks are not read: `))).toHaveLength(1);
      expect(warnings.filter((w) => w.startsWith(`${local} is not valid JSON (`) && w.endsWith("): its permission rules are not used"))).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });

  it("a settings file over 1 MiB and one that is a FIFO are not read, and each reader says so", async () => {
    const { shared, local, agent, warnings } = await startWith(async ({ shared, local }) => {
      await writeFile(shared, JSON.stringify({ permissions: { allow: ["Shell(echo huge:*)"] }, padding: "x".repeat(1024 * 1024) }));
      execFileSync("mkfifo", [local]);
    });
    try {
      expect(agent.permissionRules.rules.map((r) => r.text)).not.toContain("Shell(echo huge:*)");
      expect(warnings).toContain(`${shared} is larger than 1 MiB: its hooks are not read`);
      expect(warnings).toContain(`${shared} is larger than 1 MiB: its permission rules are not used`);
      expect(warnings).toContain(`cannot read ${local}: not a regular file`);
      expect(warnings).toContain(`cannot read ${local} (not a regular file): its permission rules are not used`);
    } finally {
      await agent.close();
    }
  });
});
