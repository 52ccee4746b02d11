/**
 * Plan mode in the interactive mode (in process, on an emulated terminal):
 * Shift-Tab turns it on and the status shows it; the model asks to leave
 * it with ExitPlanMode; approved, plan mode ends and the same turn carries
 * the plan out. Print mode and --wire: plan-mode.e2e.test.ts.
 */
import { access, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTools, gate, offeredToolNames, say, sentToolResult, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const toolResult = (n: number, id: string): string => sentToolResult(server, n, id);
const toolNames = (n: number): string[] => offeredToolNames(server, n);
const exists = (file: string) => access(file).then(() => true, () => false);

async function workspace() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  return { home, cwd, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } };
}

describe("plan mode (in process)", { timeout: 90_000 }, () => {
  it("Shift-Tab turns it on (the status shows it); the approved plan ends it and the turn carries the plan out", async () => {
    const { cwd, env } = await workspace();
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env: cleanEnv(path.dirname(cwd), env), height: 60 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
    terminal.keys("BTab");
    await terminal.waitFor(/plan mode on[\s\S]*test-model ·[^\n]*plan mode/);

    // The first answer holds until the footer was read: during the turn the footer shows the mode too.
    const footerRead = gate();
    server.enqueue(
      { message: callTools(["w1", "WriteFile", { path: "a.txt", content: "early\n" }]), usage, holdAfter: 1, release: footerRead.opened },
      { message: callTools(["p1", "ExitPlanMode", { plan: "1. Write a.txt with the greeting." }]), usage },
      { message: callTools(["w2", "WriteFile", { path: "a.txt", content: "hello\n" }]), usage },
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

});
