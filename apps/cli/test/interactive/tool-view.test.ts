/**
 * Tools as they run, on an emulated terminal (in process), against
 * the fake provider server: a slow Shell command shows as running with its
 * elapsed time; its result shows its exit code and last lines; Ctrl-O at
 * the prompt shows its whole output; a ReadFile result shows its first lines.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const call = (id: string, name: string, args: Record<string, unknown>): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }] });

describe("tools as they run, on an emulated terminal (in process)", () => {
  it("shows a slow command running with its time, its exit code and last lines, and its whole output, or an earlier tool's, on Ctrl-O", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    await writeFile(path.join(cwd, "poem.txt"), Array.from({ length: 10 }, (_, i) => `verse ${i + 1}`).join("\n"));
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, KOSONG_YOLO: "1" });
    delete env.NO_COLOR;
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width: 100, height: 40 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);

    const command = "for i in $(seq 1 12); do echo out$i; done; sleep 4; echo 'it broke' >&2; exit 3";
    server.enqueue({ message: call("s1", "Shell", { command }), usage }, { message: call("r1", "ReadFile", { path: "poem.txt" }), usage }, { message: say("All done."), usage });
    terminal.line("run the build");
    await terminal.waitFor(/running Shell\(for i in .*· \d+ s/, { from: "› run the build" });
    const screen = await terminal.waitFor(/All done\.[\s\S]*›\s*$/, { from: "› run the build" });
    expect(screen).toMatch(/✗ Shell\(for i in [^\n]*\) → Exit code 3 \(\d+ s\)\n {2}│ … 10 more lines \(Ctrl-O shows all\)\n {2}│ out10\n {2}│ out11\n {2}│ out12\n {2}│ it broke\n/);
    expect(screen).toMatch(/✓ ReadFile\(poem\.txt\)[^\n]*\n {2}│ +1\s+verse 1\n {2}│ +2\s+verse 2\n {2}│ +3\s+verse 3\n {2}│ +4\s+verse 4\n {2}│ … \d+ more lines \(Ctrl-O shows all\)/);
    expect(screen).not.toContain("out1\n");

    // Ctrl-O shows the last tool's whole output; again, the one before it; then says there is none earlier.
    terminal.keys("C-o");
    const whole = await terminal.waitFor(/── ReadFile\(poem\.txt\): whole output \(tool 2 of 2 · Ctrl-O again: the one before\) ──[\s\S]*verse 10[\s\S]*──\n›\s*$/, { from: "All done." });
    expect(whole).toContain("verse 5");
    terminal.keys("C-o");
    const earlier = await terminal.waitFor(/── Shell\(for i in [^\n]*\): whole output \(tool 1 of 2\) ──\nThe command exited with code 3\.\n(out\d+\n){12}it broke[\s\S]*──\n›\s*$/, { from: "verse 10" });
    expect(earlier).toContain("out1\n");
    terminal.keys("C-o");
    await terminal.waitFor(/── no earlier tool output ──\n›\s*$/, { from: "it broke" });
  }, 60_000);
});
