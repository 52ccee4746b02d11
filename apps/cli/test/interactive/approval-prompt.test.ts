/**
 * The approval prompt on an emulated terminal (in process), against
 * the fake provider server: a command that paints over its own prompt with
 * `\r` and escape sequences is shown whole, control characters visible; a
 * session approval of a Shell command covers only what `[a]` says; on a
 * narrow terminal the choices wrap between choices, never inside one. (Print mode's
 * control characters: print-mode.e2e.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";
import { gate } from "../e2e/fake-model.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();

const usage = { input_other: 1200, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const shell = (id: string, command: string): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id, function: { name: "Shell", arguments: JSON.stringify({ command }) } }],
});

/** Starts `kosong` in a fresh git repository, in colour, and waits for its prompt. */
async function kosongInRepository(extraEnv: Record<string, string> = {}, width = 160) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  execFileSync("git", ["init", "-q", cwd]);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...extraEnv });
  delete env.NO_COLOR;
  const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m);
  return { terminal, cwd };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("the approval prompt on an emulated terminal (in process)", () => {
  it("wraps the choices between choices on a narrow terminal, never inside one", async () => {
    const { terminal } = await kosongInRepository({}, 60);
    server.enqueue({ message: shell("s1", "echo 你好"), usage }, { message: say("Said hello."), usage });
    terminal.line("say hello");
    await terminal.waitFor(/approve\? $/m, { from: "› say hello" });
    const rows = terminal.visible().split("\n");
    for (const choice of ["[y] approve", "[a] approve this exact command for this session", "[n] reject", "or type feedback to reject with it"]) {
      expect(rows.some((row) => row.includes(choice)), `${choice}\n${rows.join("\n")}`).toBe(true);
    }
    terminal.line("y");
    await terminal.waitFor(/Said hello\.[\s\S]*›\s*$/, { from: "› say hello" });
  });

  it("shows a command that tries to paint over its prompt whole, and streamed control sequences as text", async () => {
    // FORCE_HYPERLINK: a terminal that supports hyperlinks, where a link's text could hide its address.
    const { terminal, cwd } = await kosongInRepository({ FORCE_HYPERLINK: "1" });
    const spoof = "touch pwned #\r\u001b[2K? Shell wants to: Run: ls -la";
    server.enqueue({ message: shell("s1", spoof), usage });
    terminal.line("list the files");
    let screen = await terminal.waitFor(/approve\? $/m, { from: "› list the files" });
    expect(screen).toContain("? Shell wants to: Run: touch pwned #␍␛[2K? Shell wants to: Run: ls -la");
    expect(screen).toContain("[a] approve this exact command for this session");
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› list the files" });
    expect(await readdir(cwd)).not.toContain("pwned");

    // A second line can not pass for a prompt line either: it is set in a gutter.
    server.enqueue({ message: shell("s2", "touch pwned2 #\n? Shell wants to: Run: ls -la"), usage });
    terminal.line("list again");
    screen = await terminal.waitFor(/approve\? $/m, { from: "› list again" });
    expect(screen).toMatch(/\? Shell wants to: Run: touch pwned2 #\n {2}│ \? Shell wants to: Run: ls -la\n/);
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› list again" });

    // Streamed text, thinking shown or not, keeps its escapes visible: the screen is not cleared, the title not set.
    server.enqueue({ message: say("before\u001b[2J\u001b[H\u001b]0;pwned-title\u0007\u009b2J after \u202eevil"), usage });
    terminal.line("talk");
    screen = await terminal.waitFor(/after[\s\S]*test-model ·/, { from: "› talk" });
    expect(screen).toContain("before␛[2J␛[H␛]0;pwned-title␇<U+009B>2J after <U+202E>evil");

    server.enqueue({ message: say("Read [https://docs.example.com](https://evil.example/x) first.\n\nDone."), usage });
    terminal.line("links");
    screen = await terminal.waitFor(/Done\.[\s\S]*test-model ·/, { from: "› links" });
    expect(screen).toContain("Read https://docs.example.com (https://evil.example/x) first.");
    expect(terminal.screen()).toContain("› list the files");
  }, 60_000);

  it("approving `git status` for the session covers git status commands without options only, and the prompt says so", async () => {
    const { terminal, cwd } = await kosongInRepository();
    const outside = path.join(path.dirname(cwd), "outside.txt");
    server.enqueue(
      { message: shell("g1", "git status"), usage },
      { message: shell("g2", "git status ."), usage },
      { message: shell("g3", "git status; touch pwned"), usage },
    );
    terminal.line("check the repo");
    let screen = await terminal.waitFor(/approve\? $/m, { from: "› check the repo" });
    expect(screen).toContain("Shell wants to: Run: git status");
    expect(screen).toContain("[a] approve `git status` commands without options for this session");
    terminal.line("a");
    screen = await terminal.waitFor(/Shell wants to: Run: git status; touch pwned[\s\S]*approve\? $/m, { from: "› check the repo" });
    expect(screen).toMatch(/✓ Shell\(git status \.\)/);
    expect(count(screen, "wants to:")).toBe(2);
    expect(screen).toContain("[a] approve this exact command for this session");
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› check the repo" });
    expect(await readdir(cwd)).not.toContain("pwned");

    // Approved `git log` commands do not cover an option that writes a file anywhere; file tools' approval is per tool.
    await writeFile(path.join(cwd, "a.txt"), "a\n");
    execFileSync("git", ["-C", cwd, "add", "a.txt"]);
    execFileSync("git", ["-C", cwd, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "a"]);
    server.enqueue(
      { message: shell("g4", "git log"), usage },
      { message: shell("g5", `git log -1 --output=${outside}`), usage },
    );
    terminal.line("show the log");
    screen = await terminal.waitFor(/approve\? $/m, { from: "› show the log" });
    expect(screen).toContain("[a] approve `git log` commands without options for this session");
    terminal.line("a");
    screen = await terminal.waitFor(/Run: git log -1 --output=[\s\S]*approve\? $/m, { from: "› show the log" });
    expect(screen).toContain("[a] approve this exact command for this session");
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› show the log" });
    expect(await readdir(path.dirname(cwd))).not.toContain("outside.txt");

    server.enqueue(
      { message: { role: "assistant", content: [], tool_calls: [{ type: "function", id: "w1", function: { name: "WriteFile", arguments: JSON.stringify({ path: "b.txt", content: "b\n" }) } }] }, usage },
      { message: say("Done."), usage },
    );
    terminal.line("write");
    screen = await terminal.waitFor(/WriteFile wants to[\s\S]*approve\? $/m, { from: "› write" });
    expect(screen).toContain("[a] approve every WriteFile call for this session");
    terminal.line("y");
    await terminal.waitFor(/Done\.[\s\S]*›\s*$/, { from: "› write" });
  }, 60_000);
});

describe("file approvals show the change", () => {
  const call = (id: string, name: string, args: Record<string, unknown>): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }] });

  it("an edit shows its diff in colour, an overwrite its diff against the file, a large write is cut with a count", async () => {
    const { terminal, cwd } = await kosongInRepository();
    const before = Array.from({ length: 20 }, (_, i) => `const v${i} = ${i};`).join("\n");
    await writeFile(path.join(cwd, "math.ts"), `${before}\nexport const average = (a: number[]) => sum(a) / 2;\n`);
    server.enqueue({ message: call("e1", "EditFile", { path: "math.ts", old_string: "sum(a) / 2", new_string: "sum(a) / a.length" }), usage });
    terminal.line("fix the average");
    let screen = await terminal.waitFor(/approve\? $/m, { from: "› fix the average" });
    expect(screen).toContain("EditFile wants to: Edit math.ts: replace 1 occurrence");
    expect(screen).toMatch(/│ @@ -18,4 \+18,4 @@\n.*│  const v17 = 17;\n[\s\S]*│ -export const average = \(a: number\[\]\) => sum\(a\) \/ 2;\n.*│ \+export const average = \(a: number\[\]\) => sum\(a\) \/ a\.length;\n/);
    expect(screen).not.toContain("const v10 = 10;");
    const coloured = terminal.screen(true);
    expect(coloured).toMatch(/\u001b\[31m-export const average/);
    expect(coloured).toMatch(/\u001b\[32m\+export const average/);
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› fix the average" });

    await writeFile(path.join(cwd, "list.txt"), "apple\nbanana\ncherry\n");
    server.enqueue({ message: call("w0", "WriteFile", { path: "list.txt", content: "apple\nblueberry\ncherry\n" }), usage });
    terminal.line("swap a fruit");
    screen = await terminal.waitFor(/approve\? $/m, { from: "› swap a fruit" });
    expect(screen).toMatch(/WriteFile wants to: Write list\.txt \(23 characters\)\n.*│ @@ -1,3 \+1,3 @@\n.*│  apple\n.*│ -banana\n.*│ \+blueberry\n.*│  cherry\n/);
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› swap a fruit" });

    const big = Array.from({ length: 300 }, (_, i) => `row ${i}`).join("\n");
    server.enqueue({ message: call("w1", "WriteFile", { path: "big.txt", content: big }), usage });
    terminal.line("write a big file");
    screen = await terminal.waitFor(/approve\? $/m, { from: "› write a big file" });
    expect(screen).toContain("│ @@ -0,0 +1,300 @@");
    expect(screen).toContain("│ +row 0");
    expect(screen).not.toContain("+row 299");
    expect(screen).toMatch(/│ … \d+ more lines not shown/);
    terminal.line("n");
    await terminal.waitFor(/rejected:[\s\S]*›\s*$/, { from: "› write a big file" });
  }, 60_000);

  it("shows what was typed ahead while an approval prompt is up, and keeps it for the next prompt", async () => {
    const { terminal } = await kosongInRepository();
    const slowThenShell: Message = { ...shell("s9", "echo hi"), content: Array.from({ length: 30 }, (_, i) => ({ type: "text" as const, text: `word${i} ` })) };
    // The answer holds after word3 until the typed text shows in the footer: it is surely typed while the turn streams.
    const typed = gate();
    server.enqueue({ message: slowThenShell, usage, holdAfter: 5, release: typed.opened }, { message: say("Ran it."), usage });
    terminal.line("run echo");
    await terminal.waitFor(/word3/, { from: "› run echo" });
    terminal.type("my next idea");
    await terminal.waitFor(/› my next idea\s*$/, { from: "word3" });
    typed.open();
    const screen = await terminal.waitFor(/approve\? $/m, { from: "› run echo" });
    expect(screen).toContain("typed ahead, kept for after the answer: my next idea");
    terminal.line("y");
    await terminal.waitFor(/Ran it\.[\s\S]*› my next idea\s*$/, { from: "› run echo" });
  }, 60_000);
});
