/**
 * What the interactive mode tells about a session, on an emulated terminal (in process), against the fake provider server: the session's
 * cost in the footer and `/status` (a config-file price, then kosong's table
 * after `/model`); each checkpoint's time in `/checkpoints`, kept for a
 * resumed session (none when unknown or the file is damaged); an explicit
 * `/compact` after a rejected summary asks the model again and says the
 * summary was rejected.
 */
import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { AUTO_SUMMARY_SECTIONS } from "@kosong/soul/compaction";
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

/** kosong in a fresh home (with `config`, when given, as its config.toml) and project folder, ready for input. */
async function startKosong(args: string[] = [], options: { home?: string; config?: string } = {}) {
  const home = options.home ?? (await tempDir());
  const cwd = path.join(home, "project");
  await mkdir(path.join(home, ".kosong"), { recursive: true });
  await mkdir(cwd, { recursive: true });
  if (options.config !== undefined) await writeFile(path.join(home, ".kosong", "config.toml"), options.config);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
  const terminal = KosongTerminal.start(["--model", "test-model", ...args], { cwd, env, width: 140 });
  terminals.push(terminal);
  await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
  return { terminal, cwd, home };
}

/** Sends `prompt`, answered with `answer` (then the paragraph `more`, if given), and waits for the turn's status line. */
async function turn(terminal: KosongTerminal, prompt: string, answer: string, more?: string): Promise<string> {
  server.enqueue({ message: say(more === undefined ? answer : `${answer}\n\n${more}`), usage });
  terminal.line(prompt);
  return terminal.waitFor(new RegExp(`${answer}[\\s\\S]*test-model ·[\\s\\S]*›\\s*$`), { from: `› ${prompt}` });
}

describe("session details on an emulated terminal (in process)", () => {
  it("shows the session's cost in the footer and /status: a config-file price, then the table's after /model", async () => {
    const { terminal } = await startKosong([], { config: '[prices.test-model]\ninput = 2\ncached_input = 0.5\noutput = 10\n' });
    const cachedUsage = { input_other: 1200, output: 8, input_cache_read: 300, input_cache_creation: 0 };
    server.enqueue({ message: say("Priced answer."), usage: cachedUsage });
    terminal.line("first");
    const answered = await terminal.waitFor(/Priced answer\.[\s\S]*test-model ·[\s\S]*›\s*$/, { from: "› first" });
    // The status line after the turn shows the cost the footer showed.
    expect(answered).toMatch(/Priced answer\.\n+test-model · [▰▱]{10} [^\n]*\(\d+%\) · \$0\.0026 · compaction: simple · session /);
    // (1200 x 2 + 300 x 0.5 + 8 x 10) / 1M: the cached tokens at the cached price.
    terminal.line("/status");
    await terminal.waitFor(/in 1\.5k · out 8 · cached 300 · \$0\.0026 ·/, { from: "› /status" });

    // gpt-4o is in kosong's table: (1200 x 2.5 + 300 x 1.25 + 8 x 10) / 1M more, shown in the footer of the next turn.
    terminal.line("/model gpt-4o");
    await terminal.waitFor(/Model: gpt-4o/, { from: "› /model gpt-4o" });
    // The second answer holds after its first frames until the footer was read: the turn surely runs meanwhile.
    const footerRead = gate();
    server.enqueue(
      { message: { role: "assistant", content: [], tool_calls: [{ type: "function", id: "g1", function: { name: "Glob", arguments: JSON.stringify({ pattern: "*" }) } }] }, usage: cachedUsage },
      { message: say(`Slow ${"words ".repeat(80)}end.`), usage: cachedUsage, holdAfter: 2, release: footerRead.opened },
    );
    terminal.line("second");
    await terminal.waitFor(/^▍ gpt-4o .*cached 600 · \$0\.0061$/m, { from: "› second" });
    footerRead.open();
    await terminal.waitFor(/end\.[\s\S]*gpt-4o ·[\s\S]*›\s*$/, { from: "› second" });
    terminal.line("/status");
    await terminal.waitFor(/in 4\.5k · out 24 · cached 900 · \$0\.0095 ·/, { from: "› /status" });
  }, 60_000);

  it("shows no cost for a model without a price", async () => {
    const { terminal } = await startKosong();
    await turn(terminal, "hello", "Unpriced answer.");
    terminal.line("/status");
    const screen = await terminal.waitFor(/in 1\.2k · out 8 · cached 0 ·/, { from: "› /status" });
    expect(screen).not.toContain("$");
  }, 60_000);

  it("shows each checkpoint's time in /checkpoints, and a resumed session the times it knows", async () => {
    const time = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`;
    const { terminal, home } = await startKosong();
    await turn(terminal, "first question", "One.");
    await turn(terminal, "second question", "Two.");
    terminal.line("/checkpoints");
    await terminal.waitFor(new RegExp(`checkpoint 0 · ${time} · 0 messages before it · drops "first question" onward\ncheckpoint 2 · ${time} · 2 messages before it · drops "second question" onward`), { from: "› /checkpoints" });
    terminal.line("/exit");
    await terminal.waitFor(/\[exit 0\]/);
    const sessions = path.join(home, ".kosong", "sessions");
    const [id] = await readdir(sessions);
    const file = path.join(sessions, id!, "checkpoint-times.jsonl");
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // One line per checkpoint made (the two prompts' and each step's).
    const saved = new Map((await readFile(file, "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as { id: number; at: string; messages: number }).map((entry) => [entry.id, entry]));
    expect(saved.get(2)?.messages).toBe(2);
    // Each step's checkpoint too, announced before the step writes it: the messages before it, as the context then lists it.
    expect([saved.get(1)?.messages, saved.get(3)?.messages]).toEqual([1, 3]);

    // A session an earlier version saved (its times in checkpoint-times.json), which knows checkpoint 0's time only
    // (checkpoint 2's entry damaged): a later run shows that one, and no time for the other.
    await rm(file);
    const legacy = path.join(sessions, id!, "checkpoint-times.json");
    await writeFile(legacy, JSON.stringify({ "0": { at: saved.get(0)?.at, messages: 0 }, "2": "damaged" }));
    const resumed = (await startKosong(["--continue"], { home })).terminal;
    resumed.line("/checkpoints");
    let screen = await resumed.waitFor(/checkpoint 2 · 2 messages before it/, { from: "› /checkpoints" });
    expect(screen).toMatch(new RegExp(`checkpoint 0 · ${time} · 0 messages before it`));
    resumed.line("/exit");
    await resumed.waitFor(/\[exit 0\]/);

    // A file that is not JSON lines at all: no times, and the session works as before.
    await rm(legacy);
    await writeFile(file, "\u0000{garbage");
    const third = (await startKosong(["--continue"], { home })).terminal;
    third.line("/checkpoints");
    screen = await third.waitFor(/checkpoint 2 · 2 messages before it/, { from: "› /checkpoints" });
    expect(screen).toContain("checkpoint 0 · 0 messages before it");
    await turn(third, "third question", "Three.");
    third.line("/checkpoints");
    await third.waitFor(new RegExp(`checkpoint 4 · ${time} · 4 messages before it · drops "third question" onward`), { from: "› /checkpoints" });
    // The garbage was replaced at the first save, by the times this run knows, one per line.
    expect((await readFile(file, "utf8")).split("\n").slice(0, -1).map((line) => (JSON.parse(line) as { id: number }).id)).toContain(4);
  }, 60_000);

  it("/compact after a rejected summary asks the model again instead of resting it, and says the summary was rejected", async () => {
    const { terminal } = await startKosong(["--compaction", "auto"]);
    // Answers long enough that a summary is shorter (a compaction never grows the context).
    const details = "The answer goes on with details, so that a summary of it is shorter than the answer itself. ".repeat(5);
    for (const [prompt, answer] of [["first question", "First answer."], ["second question", "Second answer."], ["third question", "Third answer."]]) await turn(terminal, prompt!, answer!, details);

    server.enqueue({ message: say("Sure, here is the summary you asked for."), usage });
    const before = server.requests.length;
    terminal.line("/compact");
    let screen = await terminal.waitFor(/summary rejected, fell back to smart:[^\n]*\n[\s\S]*acknowledgement summary[\s\S]*test-model ·/, { from: "› /compact" });
    expect(server.requests.length).toBe(before + 1);

    // The automatic cooldown does not apply: the second /compact asks the model again, and its summary is used.
    const summary = AUTO_SUMMARY_SECTIONS.map((section) => `## ${section}\nThree questions were answered.`).join("\n\n");
    server.enqueue({ message: say(summary), usage });
    // Until this line shows, the screen after "› /compact" is the first report ("…fell back to smart: compacted: …"): wait for a report of its own.
    terminal.line("/compact");
    screen = await terminal.waitFor(/(?<!: )compacted: [\d.k]+ → [\d.k]+ tokens[\s\S]*test-model ·/, { from: "› /compact" });
    expect(server.requests.length).toBe(before + 2);
    expect(screen).not.toContain("rejected");
    expect(screen).not.toContain("Skipped the main model");
  }, 60_000);
});
