/**
 * What the interactive mode holds when its prompt is drawn: not Node's
 * fetch (undici, with http2 and the web streams it loads), which only a
 * request needs and which the model's SDK loads once the prompt is drawn,
 * while the user types (an ES import of `node:http` before the prompt
 * loaded it: 8 MB of RSS at the prompt). The built binary in a real
 * terminal, with a module preloaded (`node --import`) that notes Node's
 * built-in modules loaded at the `kosong:prompt-drawn` mark and at exit;
 * the first turn still reaches the model through fetch.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";
import { TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await kosongSuite({ tmux: true });

/** Notes, as a JSON line in `$BUILTINS_OUT`, Node's built-in modules loaded when the prompt is drawn and at exit. */
const preload = `
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
const note = (at) => appendFileSync(process.env.BUILTINS_OUT, JSON.stringify({ at, builtins: process.moduleLoadList.filter((m) => m.startsWith("NativeModule ")).map((m) => m.slice(13)) }) + "\\n");
const mark = performance.mark.bind(performance);
performance.mark = (name, ...rest) => { const entry = mark(name, ...rest); if (name === "kosong:prompt-drawn") note("prompt"); return entry; };
process.on("exit", () => note("exit"));
`;

const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("the interactive prompt's memory", () => {
  it("draws the prompt without Node's fetch loaded, and the first turn still goes through it", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    const preloadFile = path.join(home, "note-builtins.mjs");
    const out = path.join(home, "builtins.jsonl");
    await writeFile(preloadFile, preload);
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, BUILTINS_OUT: out });
    const terminal = TmuxTerminal.start([process.execPath, "--import", preloadFile, kosongBin, "--model", "test-model"], { cwd, env });
    terminals.push(terminal);
    await terminal.waitFor(/test-model · [▰▱]{10} 0\/128k[\s\S]*›\s*$/m);
    server.enqueue({ message: say("Hello from the model.") });
    terminal.line("say hello");
    await terminal.waitFor(/Hello from the model\.[\s\S]*›\s*$/, { from: "› say hello" });
    terminal.keys("C-d");
    await terminal.waitFor(/\[exit 0\]/);
    const notes = (await readFile(out, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { at: string; builtins: string[] });
    const at = (when: string) => notes.find((n) => n.at === when)!.builtins;
    const fetchModules = ["internal/deps/undici/undici", "http2"];
    expect(fetchModules.filter((m) => at("prompt").includes(m))).toEqual([]);
    // The preload sees what the CLI loads: the turn's request went through Node's fetch.
    expect(at("exit")).toContain("internal/deps/undici/undici");
  }, 60_000);
});
