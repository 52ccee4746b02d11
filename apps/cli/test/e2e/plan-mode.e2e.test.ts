/**
 * Plan mode through the built binary: while it is on, WriteFile and a
 * writing Shell command are refused (even with --yolo), a reading command
 * runs; the model asks to leave it with ExitPlanMode; approved in the
 * terminal, plan mode ends and the same turn carries the plan out.
 */
import { access, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { createSession } from "@moonshot-ai/kimi-agent-sdk";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { gate, say, usage } from "./fake-model.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";
import { wireExecutable } from "./wire-wrapper.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

/** An assistant message calling each of `calls` ([id, tool, arguments]). */
const calls = (...list: [string, string, object][]): Message => ({
  role: "assistant",
  content: [],
  tool_calls: list.map(([id, name, args]) => ({ type: "function", id, function: { name, arguments: JSON.stringify(args) } })),
});
type Sent = { role: string; content?: unknown; tool_call_id?: string };
const toolResult = (n: number, id: string): string => JSON.stringify((server.requests[n]!.body!.messages as Sent[]).find((m) => m.tool_call_id === id)?.content ?? "");
const toolNames = (n: number): string[] => (server.requests[n]!.body!.tools as { function: { name: string } }[]).map((t) => t.function.name);
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
      { message: calls(["w", "WriteFile", { path: "a.txt", content: "x\n" }], ["s", "Shell", { command: "touch b.txt" }], ["r", "Shell", { command: "ls -a | wc -l" }]), usage },
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

  it("Shift-Tab turns it on (the status shows it); the approved plan ends it and the turn carries the plan out", async () => {
    const { cwd, env } = await workspace();
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model"], { cwd, env: cleanEnv(path.dirname(cwd), env), height: 60 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
    terminal.keys("BTab");
    await terminal.waitFor(/plan mode on[\s\S]*test-model ·[^\n]*plan mode/);

    // The first answer holds until the footer was read: during the turn the footer shows the mode too.
    const footerRead = gate();
    server.enqueue(
      { message: calls(["w1", "WriteFile", { path: "a.txt", content: "early\n" }]), usage, holdAfter: 1, release: footerRead.opened },
      { message: calls(["p1", "ExitPlanMode", { plan: "1. Write a.txt with the greeting." }]), usage },
      { message: calls(["w2", "WriteFile", { path: "a.txt", content: "hello\n" }]), usage },
      { message: say("Done: a.txt written."), usage },
    );
    terminal.line("write a greeting to a.txt");
    await terminal.waitFor(/^▍ test-model .*plan mode/m, { from: "› write a greeting" });
    footerRead.open();
    let screen = await terminal.waitFor(/approve\? $/m, { from: "› write a greeting" });
    expect(screen).toContain("1. Write a.txt with the greeting.");
    expect(await exists(path.join(cwd, "a.txt"))).toBe(false);
    terminal.line("y");
    await terminal.waitFor(/WriteFile wants to[\s\S]*approve\? $/m, { from: "1. Write a.txt with the greeting." });
    terminal.line("y");
    screen = await terminal.waitFor(/Done: a\.txt written\.[\s\S]*test-model ·[^\n]*\n[\s\S]*›\s*$/, { from: "› write a greeting" });
    expect(screen.slice(screen.lastIndexOf("test-model ·"))).not.toContain("plan mode");
    expect(await readFile(path.join(cwd, "a.txt"), "utf8")).toBe("hello\n");
    expect(JSON.stringify(server.requests[0]!.body!.messages)).toContain("Plan mode is on");
    expect(toolResult(1, "w1")).toContain("Plan mode is on: WriteFile is refused");
    expect(toolResult(2, "p1")).toContain("The user approved the plan. Plan mode is off");
    expect(toolNames(2)).not.toContain("ExitPlanMode");
  });

  it("over --wire, the SDK's setPlanMode switches it (kimi-cli's set_plan_mode) and a WriteFile is refused", async () => {
    const { home, cwd } = await workspace();
    const session = createSession({ workDir: cwd, executable: await wireExecutable(home, `${server.url}/v1`), model: "test-model", thinking: false, yoloMode: true });
    try {
      server.enqueue({ message: say("ready"), usage });
      const warmup = session.prompt("hi");
      for await (const _ of warmup) void _;
      expect(await session.setPlanMode(true)).toBe(true);
      server.enqueue({ message: calls(["w", "WriteFile", { path: "a.txt", content: "x\n" }]), usage }, { message: say("Plan: write a.txt."), usage });
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
