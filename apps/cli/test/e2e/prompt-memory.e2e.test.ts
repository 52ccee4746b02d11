/**
 * What the interactive mode holds while its first prompt waits. The built
 * binary in a real terminal, with a module preloaded (`node --import`) that
 * notes what the process has loaded and how big V8's young generation is.
 * - When the prompt is drawn, Node's fetch (undici, with http2 and the web
 *   streams it loads) is not loaded: only a request needs it, and the
 *   model's SDK loads it once the prompt is drawn, while the user types (an
 *   ES import of `node:http` before the prompt loaded it: 8 MB of RSS at
 *   the prompt).
 * - Once the warm-ups are done and the prompt still waits, the heap the
 *   start grew is shrunk (by V8's memory reducer, which one full collection
 *   starts and which acts about 8 s later: the test waits that long), and
 *   the first turn still works after it.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

/**
 * Appends JSON lines to `$NOTES_OUT`: Node's built-in modules loaded at the `kosong:prompt-drawn` mark and at exit,
 * and every 50 ms the young generation's committed size in MB.
 */
const preload = `
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
const note = (entry) => appendFileSync(process.env.NOTES_OUT, JSON.stringify(entry) + "\\n");
const builtins = () => process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13));
const mark = performance.mark.bind(performance);
performance.mark = (name, ...rest) => { const entry = mark(name, ...rest); if (name === "kosong:prompt-drawn") note({ at: "prompt", builtins: builtins() }); return entry; };
process.on("exit", () => note({ at: "exit", builtins: builtins() }));
setInterval(() => note({ at: "young", mb: v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").physical_space_size / 2 ** 20 }), 50).unref();
`;

interface Note {
  at: string;
  builtins?: string[];
  mb?: number;
}

const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

/** Starts the built binary with the preload, at its prompt; `notes()` reads what the preload noted so far. */
async function startNoted() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const preloadFile = path.join(home, "notes.mjs");
  const out = path.join(home, "notes.jsonl");
  await writeFile(preloadFile, preload);
  const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, NOTES_OUT: out });
  const terminal = TmuxTerminal.start([process.execPath, "--import", preloadFile, kosongBin, "--model", "test-model"], { cwd, env });
  terminals.push(terminal);
  await terminal.waitFor(/test-model · [▰▱]{10} 0\/128k[\s\S]*›\s*$/m);
  const notes = async () => (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Note);
  return { terminal, notes };
}

/** Answers `say hello` and ends the session with Ctrl-D. */
async function turnAndExit(terminal: TmuxTerminal): Promise<void> {
  server.enqueue({ message: say("Hello from the model.") });
  terminal.line("say hello");
  await terminal.waitFor(/Hello from the model\.[\s\S]*›\s*$/, { from: "› say hello" });
  terminal.keys("C-d");
  await terminal.waitFor(/\[exit 0\]/);
}

describe("the interactive prompt's memory", () => {
  it("draws the prompt without Node's fetch loaded, and the first turn still goes through it", async () => {
    const { terminal, notes } = await startNoted();
    await turnAndExit(terminal);
    const noted = await notes();
    const at = (when: string) => noted.find((n) => n.at === when)!.builtins!;
    expect(["internal/deps/undici/undici", "http2"].filter((m) => at("prompt").includes(m))).toEqual([]);
    // The preload sees what the CLI loads: the turn's request went through Node's fetch.
    expect(at("exit")).toContain("internal/deps/undici/undici");
  }, 60_000);

  it("shrinks the young generation the start grew while the prompt waits, and answers after it", async () => {
    const { terminal, notes } = await startNoted();
    const young = async () => (await notes()).filter((n) => n.at === "young").map((n) => n.mb!);
    for (let waited = 0; waited < 30_000 && !(await young()).some((mb) => mb < 1); waited += 200) await sleep(200);
    const sizes = await young();
    // Grown by the start (a few MB), then shrunk below 1 MB.
    expect(Math.max(...sizes)).toBeGreaterThan(3);
    expect(Math.min(...sizes.slice(sizes.indexOf(Math.max(...sizes))))).toBeLessThan(1);
    await turnAndExit(terminal);
  }, 60_000);
});
