/**
 * Claude Code's `.claude/settings.json` and `settings.local.json` give a
 * start both hooks and permission rules: on a real session start in a
 * trusted workspace each file is read from disk once, and both readers get
 * what they got before (the rule is used, a damaged file is named once by
 * each). `readFile` is wrapped only to count the calls; it reads the real
 * files.
 */
import * as fs from "node:fs/promises";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import { useTempDirs } from "./temp-dir.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return { ...actual, readFile: vi.fn(actual.readFile) };
});

afterEach(() => vi.mocked(fs.readFile).mockClear());

const tempDir = useTempDirs();

describe("a start reads Claude Code's settings files once", () => {
  it("each .claude settings file is read once for hooks and permission rules, and both still act and report", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    const shared = path.join(cwd, ".claude", "settings.json");
    const local = path.join(cwd, ".claude", "settings.local.json");
    await writeFile(shared, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "true" }] }] }, permissions: { allow: ["Shell(echo project-rule:*)"] } }));
    await writeFile(local, "{ not json");
    const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
    const settings = await resolveSettings({ provider: "scripted", script: "unused", trustWorkspace: true }, env);
    const warnings: string[] = [];
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    vi.mocked(fs.readFile).mockClear();
    const agent = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd, env, warn: (line) => warnings.push(line) });
    try {
      const reads = (file: string) => vi.mocked(fs.readFile).mock.calls.filter(([p]) => p === file).length;
      expect(reads(shared)).toBe(1);
      expect(reads(local)).toBe(1);
      expect(agent.permissionRules.rules.map((r) => [r.text, r.level])).toContainEqual(["Shell(echo project-rule:*)", "project"]);
      expect(warnings.filter((w) => w.startsWith(`${local} is not valid JSON, its hooks are not read: `))).toHaveLength(1);
      expect(warnings.filter((w) => w.startsWith(`${local} is not valid JSON (`) && w.endsWith("): its permission rules are not used"))).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});
