/**
 * Smoke tests of the interactive mode in a real terminal (tmux), the built
 * binary against the fake provider server: what the in-process tests
 * (test/interactive/, the same code on an emulated terminal) cannot show:
 * the binary starting on a real TTY, a prompt answered and the session
 * saved on Ctrl-D; a real SIGHUP or SIGTERM closing the session; a real
 * resize (SIGWINCH) mid-stream.
 */
import { access, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { gate } from "./fake-model.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

const usage = { input_other: 1200, output: 80, input_cache_read: 300, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
/** `text` streamed a word at a time. */
const streamed = (text: string): Message => ({ role: "assistant", content: text.split(/(?<= )/).map((word) => ({ type: "text" as const, text: word })) });
/** An answer served with `holdAfter: 2`: the role frame and "slowly " come, then the stream stalls until kosong leaves it, so "END" never shows. */
const stalling: Message = { role: "assistant", content: [{ type: "text", text: "slowly " }, { type: "text", text: "END" }] };
/** Stream controls that send `message` (after the role frame) through its first part containing `word`, then hold it until `release` resolves. */
function heldAfter(message: Message, word: string, release: Promise<void>) {
  const at = (message.content as Array<{ text: string }>).findIndex((part) => part.text.includes(word));
  if (at < 0) throw new Error(`no part of the message contains ${word}`);
  return { holdAfter: 2 + at, release };
}

async function startKosong(extraEnv: Record<string, string> = {}) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, ...extraEnv });
  delete env.NO_COLOR;
  Object.assign(env, extraEnv);
  const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model"], { cwd, env });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*test-model · [▰▱]{10} 0\/128k \(0%\)[\s\S]*›\s*$/m);
  return { terminal, cwd, home };
}

describe("kosong interactive mode in a real terminal (tmux): smoke tests", () => {
  it("starts, answers a prompt, and saves the session on Ctrl-D", async () => {
    const { terminal, home } = await startKosong();
    server.enqueue({ message: say("Hello from the model."), usage });
    terminal.line("say hello");
    await terminal.waitFor(/Hello from the model\.[\s\S]*test-model ·[\s\S]*›\s*$/, { from: "› say hello" });
    terminal.keys("C-d");
    const screen = await terminal.waitFor(/Session saved: \d{8}-\d{6}-[0-9a-f]{4}[\s\S]*\[exit 0\]/);
    const id = /Session saved: (\S+)/.exec(screen)![1]!;
    expect(await readFile(path.join(home, ".kosong/sessions", id, "context.jsonl"), "utf8")).toContain("Hello from the model.");
  }, 60_000);

  it("on SIGHUP (the terminal closed) mid-turn or SIGTERM at the prompt, aborts the turn and closes the session", async () => {
    const { terminal, home } = await startKosong();
    // The stream stalls after "slowly" until kosong leaves it: the signal, not the clock, ends it.
    server.enqueue({ message: stalling, usage, holdAfter: 2 });
    terminal.line("tell a long story");
    await terminal.waitFor(/slowly/, { from: "› tell a long story" });
    process.kill(terminal.commandPid(), "SIGHUP");
    let screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toContain("[exit 129]");
    const id = /session (\d{8}-\d{6}-[0-9a-f]{4})/.exec(screen)![1]!;
    const file = path.join(home, ".kosong/sessions", id, "context.jsonl");
    // Closed, not killed: the lock is released, and the step's checkpoint, held for the step's first append, is written.
    await expect(access(`${file}.lock`)).rejects.toMatchObject({ code: "ENOENT" });
    const records = (await readFile(file, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { role: string; id?: number });
    expect(records.map((r) => (r.role === "_checkpoint" ? `checkpoint ${r.id}` : r.role))).toEqual(["_system_prompt", "checkpoint 0", "user", "checkpoint 1"]);

    const again = await startKosong();
    process.kill(again.terminal.commandPid(), "SIGTERM");
    screen = await again.terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/No prompt given: no session saved\.[\s\S]*\[exit 143\]/);
  }, 60_000);

  it("keeps the footer row clean when the terminal shrinks mid-stream", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    delete env.NO_COLOR;
    const terminal = TmuxTerminal.start([process.execPath, kosongBin, "--model", "test-model"], { cwd, env, width: 100, height: 20 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    const text = Array.from({ length: 8 }, (_, i) => `Para${i} ${"filler words go here and wrap. ".repeat(5)}`).join("\n\n");
    // Held after Para5, so the footer is read while the turn surely runs; the resize comes at Para3, and Para6 and 7 follow it.
    const read = gate();
    server.enqueue({ message: streamed(text), usage, chunkDelayMs: 15, ...heldAfter(streamed(text), "Para5", read.opened) });
    terminal.line("talk");
    await terminal.waitFor(/Para3/, { from: "› talk" });
    terminal.resize(60, 14);
    // More text streams after the resize; the last row is still the footer alone.
    await terminal.waitFor(/Para5/, { from: "› talk" });
    const rows = terminal.visible().trimEnd().split("\n");
    expect(rows.at(-1)).toMatch(/^▍ test-model {3}[▰▱]{10} [\d.k]+\/128k \(\d+%\) {3}in [\d.k]+ · out \d+ · cach/);
    expect(rows.at(-1)).not.toMatch(/filler|words|wrap/);
    read.open();
    await terminal.waitFor(/Para7[\s\S]*test-model ·[\s\S]*›\s*$/, { from: "› talk" });
  }, 60_000);
});
