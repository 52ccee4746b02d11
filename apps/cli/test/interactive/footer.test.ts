/**
 * The status footer and Markdown across a resize, on an emulated terminal (in process), against the fake provider server: during a turn
 * the last row shows the model, the context bar and the session's tokens;
 * a resize mid-stream leaves every paragraph shown once, and a smaller
 * screen's last row the footer alone (no streamed text over it); a paragraph
 * taller than the screen is still rendered (no Markdown left raw). The
 * status line after a turn fits a narrow terminal's row (the parts it has
 * no room for left out, the session id first), and /status shows it whole.
 */
import { mkdir } from "node:fs/promises";
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

const usage = { input_other: 1200, output: 80, input_cache_read: 300, input_cache_creation: 0 };
/** `text` streamed a word at a time. */
const streamed = (text: string): Message => ({ role: "assistant", content: text.split(/(?<= )/).map((word) => ({ type: "text" as const, text: word })) });
/** Stream controls that send `message` (after the role frame) through its first part containing `word`, then hold it until `release` resolves. */
function heldAfter(message: Message, word: string, release: Promise<void>) {
  const at = (message.content as Array<{ text: string }>).findIndex((part) => part.text.includes(word));
  if (at < 0) throw new Error(`no part of the message contains ${word}`);
  return { holdAfter: 2 + at, release };
}

describe("the status footer and a resize, on an emulated terminal (in process)", () => {
  it("keeps a footer with the session's tokens on the last row, renders each paragraph once across a resize, and renders a paragraph taller than the screen", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    delete env.NO_COLOR;
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width: 100, height: 20 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);

    const paragraph = (name: string) => `${name} starts here. ${"Some filler words that wrap the line. ".repeat(6)}${name} ends here.`;
    const first = [paragraph("Alpha"), paragraph("Bravo"), paragraph("Charlie"), paragraph("Delta")].join("\n\n");
    // Held after Alpha's paragraph (the turn is surely running while the footer is read and the terminal resized), then the rest.
    const afterAlpha = gate();
    server.enqueue({ message: streamed(first), usage, chunkDelayMs: 15, ...heldAfter(streamed(first), "Bravo", afterAlpha.opened) });
    terminal.line("talk a while");
    await terminal.waitFor(/Alpha ends here/, { from: "› talk a while" });
    const rows = terminal.visible().trimEnd().split("\n");
    expect(rows.at(-1)).toMatch(/^▍ test-model {3}[▰▱]{10} [\d.k]+\/128k \(\d+%\) {3}in [\d.k]+ · out \d+ · cached \d+$/);
    terminal.resize(70, 20);
    afterAlpha.open();
    let screen = await terminal.waitFor(/Delta ends here\.[\s\S]*test-model ·[\s\S]*›\s*$/, { from: "› talk a while" });
    for (const name of ["Alpha", "Bravo", "Charlie", "Delta"]) {
      expect(screen.split(`${name} starts here.`).length - 1, screen).toBe(1);
      expect(screen.split(`${name} ends here.`).length - 1, screen).toBe(1);
    }
    // The footer counted the step's tokens; after the turn it is gone, and /status says the same figures.
    terminal.line("/status");
    screen = await terminal.waitFor(/in 1\.5k · out 80 · cached 300/, { from: "› /status" });

    // A request refused as too long, naming the server's real window: the session takes that window.
    const tooLong = { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } } };
    server.enqueue(tooLong, tooLong, tooLong, tooLong);
    terminal.line("a long question");
    screen = await terminal.waitFor(/The server's context window is 8192 tokens, not 128000[^\n]*--max-context-size 8192[\s\S]*test-model · [▰▱]{10} [\d.k]+\/8\.2k[\s\S]*›\s*$/, { from: "› a long question" });
    server.reset();

    const tall = `Tall **bold start** ${"and more words that fill the screen ".repeat(60)}tall end.`;
    server.enqueue({ message: streamed(tall), usage, chunkDelayMs: 2 });
    terminal.line("a tall one");
    screen = await terminal.waitFor(/tall end\.[\s\S]*test-model ·[\s\S]*›\s*$/, { from: "› a tall one" });
    expect(screen).toContain("Tall bold start");
    expect(screen).not.toContain("**");
  }, 60_000);


  it("fits the status line to a narrow terminal's row, leaving out what has no room, and /status shows it whole", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model"], { cwd, env, width: 70, height: 20 });
    terminals.push(terminal);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    server.enqueue({ message: streamed("Hello there."), usage });
    terminal.line("hi");
    await terminal.waitFor(/Hello there\.[\s\S]*›\s*$/, { from: "› hi" });
    const rows = terminal.visible().split("\n");
    const status = rows.filter((row) => row.startsWith("test-model · "));
    expect(status, rows.join("\n")).toHaveLength(2);
    for (const row of status) expect(rows[rows.indexOf(row) + 1], rows.join("\n")).toMatch(/^(› |\/help for commands)/);
    expect(status.at(-1)).toMatch(/^test-model · [▰▱]{10} [\d.]+k\/128k \(\d+%\) · compaction: simple$/);
    terminal.line("/status");
    const shown = await terminal.waitFor(/conversation file [^\n]*\n›\s*$/, { from: "› /status" });
    expect(shown).toMatch(/compaction: simple · session \d{8}-\d{6}-[0-9a-f]{4}\n/);
  });
});
