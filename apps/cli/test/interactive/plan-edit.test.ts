/**
 * Editing the plan before approving it, in the interactive mode (in
 * process, on an emulated terminal): at ExitPlanMode's approval, `e` opens
 * the plan in `$EDITOR` (a real child process; it gets the test process's
 * own stdio, not the emulated screen: this editor writes the file only) or,
 * without one, in the prompt editor; the plan as the user saved it is what
 * the model is told to carry out, and plan mode ends.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

type Sent = { role: string; content?: unknown; tool_call_id?: string };
const toolResult = (n: number, id: string): string => {
  const content = (server.requests[n]!.body!.messages as Sent[]).find((m) => m.tool_call_id === id)?.content ?? "";
  return typeof content === "string" ? content : JSON.stringify(content);
};
const toolNames = (n: number): string[] => ((server.requests[n]!.body!.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

async function planTerminal(extraEnv: Record<string, string> = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...extraEnv });
  const terminal = KosongTerminal.start(["--model", "test-model", "--plan"], { cwd, env, height: 50 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/);
  server.enqueue({ message: callTool("p1", "ExitPlanMode", { plan: "1. Write a.txt.\n2. Check it." }), usage }, { message: say("Carrying out your plan."), usage });
  terminal.line("plan the greeting");
  const screen = await terminal.waitFor(/approve\? $/m, { from: "› plan the greeting" });
  expect(screen).toContain("[e] edit the plan, then approve it");
  return { home, terminal };
}

describe("editing the plan before approving it (in process)", { timeout: 90_000 }, () => {
  it("opens the plan in $EDITOR; the saved plan is the one the model carries out", async () => {
    const home = await tempDir();
    const editor = path.join(home, "fake-editor");
    await writeFile(editor, `#!/bin/sh\ngrep -q '2. Check it.' "$1" || exit 3\nprintf '1. Write b.txt instead.\\n2. Check it.\\n' > "$1"\n`);
    await chmod(editor, 0o755);
    const { terminal } = await planTerminal({ EDITOR: editor });
    terminal.line("e");
    await terminal.waitFor(/Carrying out your plan\.[\s\S]*›\s*$/, { from: "› plan the greeting" });
    const result = toolResult(1, "p1");
    expect(result).toContain("The user edited your plan and approved it as edited. Plan mode is off");
    expect(result).toContain("1. Write b.txt instead.\n2. Check it.");
    expect(result).not.toContain("Write a.txt");
    expect(toolNames(1)).not.toContain("ExitPlanMode");
  });

  it("without $EDITOR, edits the plan in the prompt editor (Ctrl-C goes back to the choice; a line added)", async () => {
    const { terminal } = await planTerminal();
    terminal.line("e");
    await terminal.waitFor(/plan› 1\. Write a\.txt\.\n[\s\S]*2\. Check it\.\s*$/, { from: "› plan the greeting" });
    terminal.keys("C-c");
    await terminal.waitFor(/plan unchanged: edit cancelled[\s\S]*approve\? $/m, { from: "› plan the greeting" });
    terminal.line("e");
    await terminal.waitFor(/plan unchanged[\s\S]*plan› 1\. Write a\.txt\.\n[\s\S]*2\. Check it\.\s*$/, { from: "› plan the greeting" });
    terminal.keys("C-j");
    terminal.type("3. Run the tests.");
    terminal.keys("Enter");
    await terminal.waitFor(/Carrying out your plan\.[\s\S]*›\s*$/, { from: "› plan the greeting" });
    expect(toolResult(1, "p1")).toContain("1. Write a.txt.\n2. Check it.\n3. Run the tests.");
    expect(toolResult(1, "p1")).toContain("approved it as edited");
  });
});
