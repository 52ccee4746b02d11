/**
 * Resuming on an emulated terminal (in process), against the fake
 * provider server: `kosong --resume` without an id lists the sessions and
 * resumes the one chosen; a session of another folder is said so and,
 * when the user agrees, runs in its own folder; a resumed session shows
 * its last prompts and answers.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, runKosong } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite({ binary: true });

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("kosong --resume on an emulated terminal (in process)", () => {
  it("picks a session from a list, offers its own folder, and shows where it left off", async () => {
    const home = await tempDir();
    const [alpha, beta] = [path.join(home, "alpha"), path.join(home, "beta")];
    await mkdir(alpha);
    await mkdir(beta);
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
    server.enqueue({ message: say("Alpha is done."), usage });
    expect((await runKosong(["-p", "finish the alpha task"], { cwd: alpha, home, env })).code).toBe(0);
    server.enqueue({ message: say("Beta is done."), usage });
    expect((await runKosong(["-p", "finish the beta task"], { cwd: beta, home, env })).code).toBe(0);

    const terminalEnv = cleanEnv(home, env);
    delete terminalEnv.NO_COLOR;
    const terminal = KosongTerminal.start(["--resume", "--model", "test-model"], { cwd: beta, env: terminalEnv });
    terminals.push(terminal);
    let screen = await terminal.waitFor(/number \(Enter: 1, Ctrl-C: a new session\)› $/m);
    expect(screen).toMatch(/Resume which session\? \(2 sessions, most recent first\)\n\s+1 {2}finish the beta task {2}\d+ min ago · [\d.]+ (B|KiB) · .*beta\n\s+2 {2}finish the alpha task {2}\d+ min ago · [\d.]+ (B|KiB) · .*alpha\n/);
    terminal.line("2");
    screen = await terminal.waitFor(/\[Y\/n\] $/m);
    expect(screen).toMatch(/This session ran in .*alpha, not here \(.*beta\)/);
    terminal.keys("Enter");
    screen = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(screen).toMatch(/kosong \S+ · .*alpha\n/);
    expect(screen).toMatch(/Resumed \S+: \d+ messages\. The last of them:\n› finish the alpha task\n\s+Alpha is done\.\n/);
    server.enqueue({ message: say("Still alpha."), usage });
    terminal.line("where are we?");
    await terminal.waitFor(/Still alpha\.[\s\S]*›\s*$/, { from: "› where are we?" });
    const messages = server.requests.at(-1)!.body!.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.content).join("\n")).toContain("finish the alpha task");
    terminal.keys("C-d");
    await terminal.waitFor(/\[exit 0\]/);
  }, 60_000);
});
