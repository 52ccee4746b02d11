/**
 * A background child (`Agent` with `run_in_background`) that asks for
 * approval after its parent's turn has ended, in the interactive mode (in
 * process, on an emulated terminal) against the fake provider server: the
 * approval is asked at the prompt, naming the child, and the child goes on
 * with the answer; one that finishes while the user types at the prompt
 * is announced above it, the typed text kept (one stopped by the exit is
 * not). Print mode and --wire:
 * background-approval.e2e.test.ts.
 *
 * The child waits to start until the test says so (`gateSubagentStart`),
 * so its request comes after the parent's turn ended.
 */
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { FakeMessageResponse } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { enqueueBackgroundWrite, gatedProject } from "../e2e/background-write.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

/** kosong in `cwd`, at its first prompt. */
async function kosongAt(home: string, cwd: string, env: Record<string, string>): Promise<KosongTerminal> {
  const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env: cleanEnv(home, env), width: 120, height: 40 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  return terminal;
}

/** Has the model start a background coder ("look around") whose answer is `child`, and waits for the parent's turn to end. */
async function startLookAround(terminal: KosongTerminal, child: FakeMessageResponse): Promise<void> {
  server.enqueue(
    { message: callTool("call_b", "Agent", { description: "look around", prompt: "Look around", subagent_type: "coder", run_in_background: true }), usage },
    { message: say("Started it."), usage },
    child,
  );
  terminal.line("look around in the background");
  await terminal.waitFor(/Started it\.[\s\S]*›\s*$/, { from: "› look around" });
}

describe("a background agent's approval between turns", { timeout: 90_000 }, () => {
  it("is asked at the interactive prompt, naming the agent, and the agent goes on with the answer", async () => {
    const { home, cwd, env, go } = await gatedProject(await tempDir(), server);
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env: cleanEnv(home, env), width: 120, height: 40 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    enqueueBackgroundWrite(server);
    terminal.line("write the notes in the background");
    await terminal.waitFor(/Started it\.[\s\S]*›\s*$/, { from: "› write the notes" });
    // Typed at the prompt, not entered: kept for after the answer.
    terminal.type("half typed");
    await go();
    const asked = await terminal.waitFor(/approve\? $/m, { from: "Started it." });
    expect(asked).toMatch(/\? coder\/WriteFile \(background agent agent-[0-9a-f]{8}\) wants to:/);
    terminal.line("y");
    await terminal.waitFor(/›\s*half typed\s*$/m, { from: "approve?" });
    await expect.poll(() => readFile(path.join(cwd, "notes.txt"), "utf8").catch(() => ""), { timeout: 20_000 }).toBe("from the background\n");
  });

  it("says above the prompt when a background agent finishes while the user types, keeping the typed text", async () => {
    const { home, cwd, env, go } = await gatedProject(await tempDir(), server);
    const terminal = await kosongAt(home, cwd, env);
    await startLookAround(terminal, { message: say("all looked at"), usage });
    terminal.type("half typed");
    await go();
    const screen = await terminal.waitFor(/Background agent agent-[0-9a-f]{8} \(coder, "look around"\) finished; its answer goes to the model with your next message\.\n[\s\S]*›\s*half typed\s*$/, { from: "Started it." });
    expect(screen.match(/Background agent agent-/g)).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it("announces nothing for a background agent stopped because the user exits", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const terminal = await kosongAt(home, cwd, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    // The child's answer stalls until kosong leaves it (the exit's abort).
    await startLookAround(terminal, { message: say("never ends"), usage, holdAfter: 1 });
    await expect.poll(() => server.requests.length).toBe(3);
    terminal.keys("C-d");
    const screen = await terminal.waitFor(/\[exit 0\]/, { from: "Started it." });
    expect(screen).not.toContain("Background agent");
  });
});
