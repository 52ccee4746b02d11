/**
 * What the interactive mode tells about a session, in a real terminal
 * (tmux), the built binary against the fake provider server: an explicit
 * `/compact` after a rejected summary asks the model again and says the
 * summary was rejected.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { AUTO_SUMMARY_SECTIONS } from "@kosong/soul/compaction";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

/** kosong in a fresh home and project folder, ready for input. */
async function startKosong(args: string[] = [], home?: string) {
  home ??= await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd, { recursive: true });
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
  const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model", ...args], { cwd, env, width: 140 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  return { terminal, cwd, home };
}

/** Sends `prompt`, answered with `answer`, and waits for the turn's status line. */
async function turn(terminal: TmuxTerminal, prompt: string, answer: string): Promise<string> {
  server.enqueue({ message: say(answer), usage });
  terminal.line(prompt);
  return terminal.waitFor(new RegExp(`${answer}[\\s\\S]*test-model ·[\\s\\S]*›\\s*$`), { from: `› ${prompt}` });
}

describe("session details in a real terminal (tmux)", () => {
  it("/compact after a rejected summary asks the model again instead of resting it, and says the summary was rejected", async () => {
    const { terminal } = await startKosong(["--compaction", "auto"]);
    for (const [prompt, answer] of [["first question", "First answer."], ["second question", "Second answer."], ["third question", "Third answer."]]) await turn(terminal, prompt!, answer!);

    server.enqueue({ message: say("Sure, here is the summary you asked for."), usage });
    const before = server.requests.length;
    terminal.line("/compact");
    let screen = await terminal.waitFor(/summary rejected, fell back to smart:[^\n]*\n[\s\S]*acknowledgement summary[\s\S]*test-model ·/, { from: "› /compact" });
    expect(server.requests.length).toBe(before + 1);

    // The automatic cooldown does not apply: the second /compact asks the model again, and its summary is used.
    const summary = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nThree questions were answered.`).join("\n\n");
    server.enqueue({ message: say(summary), usage });
    terminal.line("/compact");
    screen = await terminal.waitFor(/compacted: [\d.k]+ → [\d.k]+ tokens[\s\S]*test-model ·/, { from: "› /compact" });
    expect(server.requests.length).toBe(before + 2);
    expect(screen).not.toContain("rejected");
    expect(screen).not.toContain("Skipped the main model");
  }, 60_000);
});
