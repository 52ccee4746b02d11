/**
 * Plan mode through the built binary: while it is on, WriteFile and a
 * writing Shell command are refused (even with --yolo), a reading command
 * runs (print mode); over --wire the SDK switches it. Shift-Tab and the
 * approved plan in the terminal: test/interactive/plan-mode.test.ts.
 */
import { access, mkdir } from "node:fs/promises";
import path from "node:path";
import { createSession } from "@moonshot-ai/kimi-agent-sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTools, offeredToolNames, say, sentToolResult, usage } from "./fake-model.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { wireExecutable } from "./wire-wrapper.js";

const tempDir = useTempDirs();
const { server } = await kosongSuite();

const toolResult = (n: number, id: string): string => sentToolResult(server, n, id);
const toolNames = (n: number): string[] => offeredToolNames(server, n);
const exists = (file: string) => access(file).then(() => true, () => false);

async function workspace() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  return { home, cwd, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } };
}

describe("plan mode (the built binary)", { timeout: 90_000 }, () => {
  it("--plan refuses WriteFile and a writing Shell command even with --yolo, and runs a reading one (print mode)", async () => {
    const { home, cwd, env } = await workspace();
    server.enqueue(
      { message: callTools(["w", "WriteFile", { path: "a.txt", content: "x\n" }], ["s", "Shell", { command: "touch b.txt" }], ["r", "Shell", { command: "ls -a | wc -l" }]), usage },
      { message: say("Here is my plan."), usage },
    );
    const result = await runKosong(["-p", "add a.txt", "--plan", "--yolo"], { cwd, home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(toolNames(0)).toContain("ExitPlanMode");
    expect(toolResult(1, "w")).toContain("Plan mode is on: WriteFile is refused");
    expect(toolResult(1, "s")).toContain("Plan mode is on: Shell runs only commands that read");
    expect(toolResult(1, "r")).toMatch(/\d/);
    expect(toolResult(1, "r")).not.toContain("Plan mode");
    expect(await exists(path.join(cwd, "a.txt"))).toBe(false);
    expect(await exists(path.join(cwd, "b.txt"))).toBe(false);
  });

  it("over --wire, the SDK's setPlanMode switches it (kimi-cli's set_plan_mode) and a WriteFile is refused", async () => {
    const { home, cwd } = await workspace();
    const session = createSession({ workDir: cwd, executable: await wireExecutable(home, `${server.url}/v1`), model: "test-model", thinking: false, yoloMode: true });
    try {
      server.enqueue({ message: say("ready"), usage });
      const warmup = session.prompt("hi");
      for await (const _ of warmup) void _;
      expect(await session.setPlanMode(true)).toBe(true);
      server.enqueue({ message: callTools(["w", "WriteFile", { path: "a.txt", content: "x\n" }]), usage }, { message: say("Plan: write a.txt."), usage });
      const turn = session.prompt("add a.txt");
      for await (const _ of turn) void _;
      expect(toolNames(1)).toContain("ExitPlanMode");
      expect(toolResult(2, "w")).toContain("Plan mode is on: WriteFile is refused");
      expect(await exists(path.join(cwd, "a.txt"))).toBe(false);
      expect(await session.setPlanMode(false)).toBe(false);
    } finally {
      await session.close();
    }
  });
});
