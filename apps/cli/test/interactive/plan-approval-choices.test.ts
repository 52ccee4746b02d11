/**
 * Leaving plan mode is asked every time, in the interactive mode (in
 * process, on an emulated terminal): ExitPlanMode's approval offers no "for this session" and no
 * "always for this project" choice, `a` does not approve, an allow rule
 * naming ExitPlanMode approves nothing, and the next plan is asked about
 * again.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

describe("ExitPlanMode's approval in the terminal", { timeout: 90_000 }, () => {
  it("offers only y, e, n: `a` is not an answer, an allow rule does not answer, nothing is saved for the project, the next plan is asked again", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    // A rule that allows ExitPlanMode by name covers no plan either.
    await mkdir(path.join(home, ".kosong"));
    await writeFile(path.join(home, ".kosong", "config.json"), JSON.stringify({ permissions: { allow: ["ExitPlanMode"] } }));
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model", "--plan"], { cwd, env, height: 50 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
    server.enqueue({ message: callTool("p1", "ExitPlanMode", { plan: "1. Write a.txt." }), usage }, { message: say("Carrying out plan one."), usage });
    terminal.line("plan one");
    const asked = await terminal.waitFor(/approve\? $/m, { from: "› plan one" });
    expect(asked).toContain("[y] approve   [e] edit the plan, then approve it   [n] reject");
    expect(asked).not.toContain("[a]");
    expect(asked).not.toContain("[p]");
    terminal.line("a");
    await terminal.waitFor(/answer y, e, n, or type feedback\n[\s\S]*approve\? $/m, { from: "› plan one" });
    terminal.line("y");
    await terminal.waitFor(/Carrying out plan one\.[\s\S]*›\s*$/, { from: "› plan one" });
    expect(existsSync(path.join(cwd, ".kosong", "settings.json"))).toBe(false);
    terminal.line("/plan");
    await terminal.waitFor(/plan mode on[\s\S]*›\s*$/, { from: "Carrying out plan one." });
    server.enqueue({ message: callTool("p2", "ExitPlanMode", { plan: "1. Delete everything." }), usage });
    terminal.line("plan two");
    const again = await terminal.waitFor(/approve\? $/m, { from: "› plan two" });
    expect(again).toContain("Delete everything.");
    terminal.line("n");
    await terminal.waitFor(/Rejected by user[\s\S]*plan mode ·[^\n]*\n›\s*$/, { from: "› plan two" });
  });
});
