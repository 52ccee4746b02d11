/**
 * The interactive mode end to end (in process, on an emulated terminal),
 * against the fake provider server: streamed Markdown, the status line, an
 * approval, /compact, /checkpoints and /revert, /edit, Ctrl-C aborting a
 * turn, Ctrl-D and Ctrl-C twice exiting, no colours under NO_COLOR. A real
 * signal ending it: e2e/terminal-smoke.e2e.test.ts.
 */
import { mkdir, readFile } from "node:fs/promises";
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
/** An answer served with `holdAfter: 2`: the role frame and "slowly " come, then the stream stalls until kosong leaves it, so "END" never shows. */
const stalling: Message = { role: "assistant", content: [{ type: "text", text: "slowly " }, { type: "text", text: "END" }] };

async function startKosong(extraEnv: Record<string, string> = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...extraEnv });
  delete env.NO_COLOR;
  Object.assign(env, extraEnv);
  const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*test-model · [▰▱]{10} 0\/128k \(0%\)[\s\S]*›\s*$/m);
  return { terminal, cwd, home };
}

/** The text of the last user message of the `n`th request (OpenAI format). */
function lastUserText(n: number): string {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string }[];
  return messages.findLast((m) => m.role === "user")!.content;
}

describe("kosong interactive mode on an emulated terminal (in process)", () => {
  it("streams Markdown, shows the status line, asks approval, compacts, reverts, edits, aborts with Ctrl-C and exits cleanly", async () => {
    const { terminal, cwd, home } = await startKosong();

    // A prompt, streamed Markdown, the status line. The paragraph gives the /compact below something a summary is shorter than (a compaction never grows the context).
    const paragraph = "A greeting that goes on for a while, so that a summary of it is shorter. ".repeat(6);
    server.enqueue({ message: say(`Hello **bold** world.\n\n- first item\n- second item\n\n${paragraph}`), usage, chunkDelayMs: 20 });
    terminal.line("say hello");
    let screen = await terminal.waitFor(/test-model · [▰▱]{10} 1\.3k\/128k \(1%\)/, { from: "› say hello" });
    expect(screen).toContain("Hello bold world.");
    expect(screen).not.toContain("**bold**");
    expect(screen).toMatch(/\* first item/);
    expect(screen).toMatch(/session \d{8}-\d{6}-[0-9a-f]{4}/);
    expect(terminal.screen(true)).toContain("\u001b[");

    // A tool that needs approval.
    server.enqueue(
      { message: { role: "assistant", content: [], tool_calls: [{ type: "function", id: "w1", function: { name: "WriteFile", arguments: JSON.stringify({ path: "hello.txt", content: "hi\n" }) } }] }, usage },
      { message: say("Wrote hello.txt."), usage },
    );
    terminal.line("write hello.txt");
    screen = await terminal.waitFor(/approve\? $/m, { from: "› write hello.txt" });
    expect(screen).toContain("WriteFile wants to: Write hello.txt (3 characters)");
    expect(screen).toContain("[a] approve every WriteFile call for this session");
    terminal.line("y");
    screen = await terminal.waitFor(/Wrote hello\.txt\.[\s\S]*›\s*$/, { from: "› write hello.txt" });
    expect(screen).toMatch(/✓ WriteFile\(hello\.txt\) → hello\.txt \(1 line\)/);
    expect(await readFile(path.join(cwd, "hello.txt"), "utf8")).toBe("hi\n");

    // /compact with the default strategy (an LLM summary).
    server.enqueue({ message: say("Summary: said hello, wrote hello.txt."), usage });
    terminal.line("/compact keep the file name");
    screen = await terminal.waitFor(/compacted: [\d.k]+ → [\d.k]+ tokens[\s\S]*test-model ·/, { from: "› /compact" });
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain("keep the file name");

    // /checkpoints and /revert: the compaction's checkpoint goes on from the ids before it (an old id names no other point).
    terminal.line("/checkpoints all");
    screen = await terminal.waitFor(/checkpoint \d+ ·/, { from: "› /checkpoints all" });
    const fresh = [...screen.matchAll(/checkpoint (\d+) ·/g)].at(-1)![1]!;
    expect(Number(fresh)).toBeGreaterThan(0);
    terminal.line(`/revert ${fresh}`);
    screen = await terminal.waitFor(new RegExp(`Reverted to checkpoint ${fresh}; 0 messages remain\\. /restore \\d+ undoes it\\.`), { from: `› /revert ${fresh}` });

    // /edit: rewrite a past prompt and rerun from there.
    server.enqueue({ message: say("Answer one."), usage }, { message: say("Answer two."), usage });
    terminal.line("first question");
    await terminal.waitFor(/Answer one\.[\s\S]*›\s*$/, { from: "› first question" });
    terminal.line("/edit");
    screen = await terminal.waitFor(/#(\d+)\s+first question/, { from: "› /edit" });
    const number = /#(\d+)\s+first question/.exec(screen)![1]!;
    terminal.line(`/edit ${number}`);
    await terminal.waitFor(/edit› first question$/m, { from: `› /edit ${number}` });
    terminal.keys("C-u");
    terminal.line("edited question");
    screen = await terminal.waitFor(/Answer two\.[\s\S]*test-model ·/, { from: `› /edit ${number}` });
    expect(screen).toMatch(/⟲ rewrite: back to checkpoint \d+/);
    expect(lastUserText(server.requests.length - 1)).toBe("edited question");
    expect(JSON.stringify(server.requests.at(-1)!.body)).not.toContain("Answer one.");

    // Ctrl-C aborts a running turn; the conversation stays usable.
    // The stream stalls after "slowly" until kosong leaves it: the abort, not the clock, ends it.
    server.enqueue({ message: stalling, usage, holdAfter: 2 }, { message: say("Still fine."), usage });
    terminal.line("tell a long story");
    await terminal.waitFor(/slowly/, { from: "› tell a long story" });
    terminal.keys("C-c");
    screen = await terminal.waitFor(/■ interrupted[\s\S]*›\s*$/, { from: "› tell a long story" });
    expect(screen).not.toContain("END");
    terminal.line("are you there?");
    // The turn has ended when the prompt is back: a line typed before that is steered into the running turn.
    await terminal.waitFor(/Still fine\.[\s\S]*›\s*$/, { from: "› are you there?" });

    // Unknown commands get help; Ctrl-D at an empty prompt exits cleanly.
    terminal.line("/frobnicate");
    await terminal.waitFor(/Unknown command \/frobnicate\. .*\/help lists the commands\./, { from: "› /frobnicate" });
    terminal.keys("C-d");
    screen = await terminal.waitFor(/Session saved: \d{8}-\d{6}-[0-9a-f]{4}[\s\S]*\[exit 0\]/);
    const id = /Session saved: (\S+)/.exec(screen)![1]!;
    const saved = await readFile(path.join(home, ".kosong/sessions", id, "context.jsonl"), "utf8");
    expect(saved).toContain("Still fine.");
  }, 120_000);

  it("exits on Ctrl-C twice, without colours under NO_COLOR", async () => {
    const { terminal } = await startKosong({ NO_COLOR: "1" });
    terminal.line("/help");
    const screen = await terminal.waitFor(/\/restore <n>[\s\S]*Ctrl-C twice, Ctrl-D/, { from: "› /help" });
    for (const command of ["/status", "/context", "/compact", "/strategy", "/checkpoints", "/revert", "/edit", "/clear", "/rotations", "/restore", "/sessions", "/yolo", "/exit"]) {
      expect(screen).toContain(command);
    }
    terminal.keys("C-c");
    await terminal.waitFor(/Ctrl-C again or Ctrl-D to exit/);
    terminal.keys("C-c");
    await terminal.waitFor(/\[exit 0\]/);
    expect(terminal.screen(true)).not.toContain("\u001b[3");
  }, 60_000);
});
