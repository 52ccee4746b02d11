/**
 * `/btw`, `/tree` and `/fork` on an emulated terminal (in process) against the fake
 * OpenAI server: a side question leaves the conversation file byte for byte
 * as it was (kept or not), a kept answer, a revert and a switch list as a
 * tree, `/tree n` switches branches, and `/fork` copies the current branch
 * into a session that resumes with it.
 */
import { mkdir, readdir, readFile } from "node:fs/promises";
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

async function startKosong(home: string, args: string[] = []) {
  const cwd = path.join(home, "project");
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
  const terminal = KosongTerminal.start(["--model", "test-model", ...args], { cwd, env });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  return terminal;
}

/** The messages of request `n`, as role and text. */
function sent(n: number): string[] {
  const messages = server.requests[n]!.body!.messages as { role: string; content: string | null }[];
  return messages.filter((m) => m.role !== "system").map((m) => `${m.role}: ${m.content}`);
}

describe("branches in the interactive mode (in process)", () => {
  it("/btw answers with no tools and leaves context.jsonl byte-identical; /tree lists and switches branches; /fork copies the current one", async () => {
    const home = await tempDir();
    await mkdir(path.join(home, "project"));
    const terminal = await startKosong(home);
    server.enqueue({ message: say("First answer."), usage });
    terminal.line("first question");
    let screen = await terminal.waitFor(/First answer\.[\s\S]*session (\d{8}-\d{6}-[0-9a-f]{4})/, { from: "› first question" });
    const id = /session (\d{8}-\d{6}-[0-9a-f]{4})/.exec(screen)![1]!;
    const dir = path.join(home, ".kosong/sessions", id);
    const file = path.join(dir, "context.jsonl");
    const before = await readFile(file);

    // A side question, not kept: the model saw the conversation and the question, with no tools; nothing was written.
    server.enqueue({ message: say("Paris, by the way."), usage });
    terminal.line("/btw what is the capital of France?");
    screen = await terminal.waitFor(/Keep this answer as a branch\? \[y\/N\] $/m, { from: "› /btw" });
    expect(screen).toContain("Paris, by the way.");
    const asked = server.requests.length - 1;
    expect(sent(asked)).toEqual(["user: first question", "assistant: First answer.", "user: what is the capital of France?"]);
    expect(server.requests[asked]!.body!.tools ?? []).toEqual([]);
    terminal.line("n");
    await terminal.waitFor(/Not kept; the conversation is unchanged\./, { from: "› /btw" });
    expect((await readFile(file)).equals(before)).toBe(true);
    expect((await readdir(dir)).filter((name) => /^context_\d+\.jsonl$/.test(name))).toEqual([]);

    // Aborted with Ctrl-C mid-answer, and an answer with terminal escapes (shown, not obeyed): the file is still the same.
    // The stream stalls after its first words until kosong leaves it (the role frame, then "slowly"): "END" never comes, however slow the machine.
    const slow: Message = { role: "assistant", content: [{ type: "text", text: "slowly " }, { type: "text", text: "END" }] };
    server.enqueue({ message: slow, usage, holdAfter: 2 });
    terminal.line("/btw tell a long story");
    await terminal.waitFor(/slowly/, { from: "› /btw tell" });
    terminal.keys("C-c");
    screen = await terminal.waitFor(/btw aborted; the conversation is unchanged\.[\s\S]*›\s*$/, { from: "› /btw tell" });
    expect(screen).not.toContain("END");
    server.enqueue({ message: say("red \u001b[31malert\u001b[0m"), usage });
    terminal.line("/btw escapes?");
    screen = await terminal.waitFor(/Keep this answer as a branch\? \[y\/N\] $/m, { from: "› /btw escapes?" });
    expect(screen).toContain("red ␛[31malert␛[0m");
    terminal.line("n");
    await terminal.waitFor(/Not kept/, { from: "› /btw escapes?" });
    expect((await readFile(file)).equals(before)).toBe(true);

    // Kept: a new branch, and still not a byte of the conversation changed.
    server.enqueue({ message: say("Blue, by the way."), usage });
    terminal.line("/btw and the colour of the sky?");
    await terminal.waitFor(/Keep this answer as a branch\? \[y\/N\] $/m, { from: "› /btw and" });
    terminal.line("y");
    await terminal.waitFor(/Kept as branch 1; the conversation is unchanged\. \/tree 1 switches to it\./, { from: "› /btw and" });
    expect((await readFile(file)).equals(before)).toBe(true);

    // The next turn does not see the side questions.
    server.enqueue({ message: say("Second answer."), usage });
    terminal.line("second question");
    await terminal.waitFor(/Second answer\.[\s\S]*›\s*$/, { from: "› second question" });
    expect(sent(server.requests.length - 1)).toEqual(["user: first question", "assistant: First answer.", "user: second question"]);

    // A revert leaves a branch; /tree shows both under the current one.
    terminal.line("/checkpoints");
    screen = await terminal.waitFor(/checkpoint (\d+) [^\n]*drops "second question" onward/, { from: "› /checkpoints" });
    const checkpoint = /checkpoint (\d+) [^\n]*drops "second question" onward/.exec(screen)![1]!;
    terminal.line(`/revert ${checkpoint}`);
    await terminal.waitFor(/Reverted to checkpoint \d+; 2 messages remain/, { from: `› /revert ${checkpoint}` });
    terminal.line("/tree");
    screen = await terminal.waitFor(/\/tree <n> switches to branch n/, { from: "› /tree" });
    expect(screen).toMatch(/● current · 2 messages "first question"/);
    expect(screen).toMatch(/├─ 1  btw at checkpoint \d+ · [\d-]+ [\d:]+ · 4 messages · \d+ bytes "and the colour of the sky\?"/);
    expect(screen).toMatch(new RegExp(`└─ 2  revert at checkpoint ${checkpoint} · [\\d-]+ [\\d:]+ · 4 messages · \\d+ bytes "second question"`));

    // /tree 2 switches to the reverted branch; the one left is kept as branch 3.
    terminal.line("/tree 2");
    await terminal.waitFor(/Switched to branch 2; the replaced conversation is branch 3\. 4 messages\./, { from: "› /tree 2" });
    server.enqueue({ message: say("Third answer."), usage });
    terminal.line("third question");
    await terminal.waitFor(/Third answer\.[\s\S]*›\s*$/, { from: "› third question" });
    expect(sent(server.requests.length - 1)).toEqual(["user: first question", "assistant: First answer.", "user: second question", "assistant: Second answer.", "user: third question"]);
    // The second /tree: wait for what only its listing shows (the first one's is still on the screen, after an earlier "› /tree").
    terminal.line("/tree");
    await terminal.waitFor(/› \/tree\n[^›]*3 {2}restore at checkpoint \d+ · [^\n]*2 messages[^›]*\/tree <n> switches to branch n/, { from: "› third question" });

    // /fork: a new session with this branch, byte for byte; it resumes with it.
    terminal.line("/fork");
    screen = await terminal.waitFor(/Forked the current branch into session (\S+): kosong --resume \S+ opens it\./, { from: "› /fork" });
    const forked = /into session (\S+):/.exec(screen)![1]!;
    const copy = await readFile(path.join(home, ".kosong/sessions", forked, "context.jsonl"));
    expect(copy.equals(await readFile(file))).toBe(true);
    terminal.keys("C-d");
    await terminal.waitFor(/\[exit 0\]/);

    const resumed = await startKosong(home, ["--resume", forked]);
    server.enqueue({ message: say("Fourth answer."), usage });
    resumed.line("fourth question");
    await resumed.waitFor(/Fourth answer\./, { from: "› fourth question" });
    expect(sent(server.requests.length - 1).slice(-3)).toEqual(["user: third question", "assistant: Third answer.", "user: fourth question"]);
  }, 120_000);
});
