/**
 * While the first prompt waits, the interactive mode runs the first
 * turn's code (Node's fetch, the SDK's request and stream parsing, the
 * agent loop) against a throwaway local server, so the first turn does not pay for it: the
 * provider's server gets nothing before Enter, and the first turn works
 * the same when Enter comes at once (the warm-up stopped half way). A new
 * session's system prompt goes into its file meanwhile too, so that the
 * first turn writes only its own records, as a later turn does; and a
 * failed write of the first prompt's record in session.json is reported
 * after the turn. (That the request does not wait for that write has no
 * test since session.json is replaced through a temporary file: a FIFO no
 * longer stalls it.)
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { performance } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { useTempDirs } from "../temp-dir.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const { server, start } = await interactiveSuite();
const warmed = "kosong:first-turn-warmed";

/** Starts kosong on the fake server and waits for its first prompt (the start-up marks of an earlier run in this process cleared). */
async function startAtPrompt() {
  performance.clearMarks();
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const terminal = start(["--model", "test-model"], { cwd, env: cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` }) });
  await terminal.waitFor(/test-model · [▰▱]{10} 0\/128k \(0%\)[\s\S]*›\s*$/m);
  return { terminal, home };
}

/** The folder of the one session under `home`. */
async function sessionFolder(home: string): Promise<string> {
  const sessions = path.join(home, ".kosong", "sessions");
  const [id] = await readdir(sessions);
  return path.join(sessions, id!);
}

/** The records of the one session's conversation file under `home`, as parsed JSON. */
async function sessionRecords(home: string): Promise<{ role: string; content?: string }[]> {
  const text = await readFile(path.join(await sessionFolder(home), "context.jsonl"), "utf8");
  return text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as { role: string; content?: string });
}

/** Resolves once the session's file under `home` holds a system prompt. */
async function systemPromptStored(home: string): Promise<void> {
  for (let waited = 0; !(await sessionRecords(home)).some((r) => r.role === "_system_prompt"); waited += 10) {
    if (waited > 20_000) throw new Error("the system prompt was not stored while the prompt waited");
    await sleep(10);
  }
}

/** The last user message of each request the fake server got. */
const prompts = () => server.requests.map((request) => (request.body!.messages as { role: string; content: string }[]).findLast((m) => m.role === "user")!.content);

describe("the first turn's warm-up at the first prompt", () => {
  it("runs while the prompt waits and sends the provider nothing; the first turn then goes as usual", async () => {
    const { terminal } = await startAtPrompt();
    for (let waited = 0; performance.getEntriesByName(warmed, "mark").length === 0; waited += 10) {
      if (waited > 20_000) throw new Error("the warm-up never finished");
      await sleep(10);
    }
    expect(server.requests).toEqual([]);
    server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "First answer." }] } });
    terminal.line("hello there");
    await terminal.waitFor(/First answer\.[\s\S]*›\s*$/, { from: "› hello there" });
    expect(prompts()).toEqual(["hello there"]);
  });

  it("leaves a first turn typed the moment the prompt appears as it would be without it", async () => {
    const { terminal } = await startAtPrompt();
    server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "Quick answer." }] } });
    terminal.line("at once");
    await terminal.waitFor(/Quick answer\.[\s\S]*›\s*$/, { from: "› at once" });
    // Whatever of the warm-up was still running reached no one else.
    await sleep(200);
    expect(prompts()).toEqual(["at once"]);
  });

  it("stores a new session's system prompt in its file before Enter, once: the first turn sends it and writes only its own records", async () => {
    const { terminal, home } = await startAtPrompt();
    await systemPromptStored(home);
    const [stored] = await sessionRecords(home);
    expect(stored!.role).toBe("_system_prompt");
    server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "First answer." }] } });
    terminal.line("hello there");
    await terminal.waitFor(/First answer\.[\s\S]*›\s*$/, { from: "› hello there" });
    const records = await sessionRecords(home);
    expect(records.filter((r) => r.role === "_system_prompt")).toEqual([stored]);
    expect(records.slice(0, 3).map((r) => r.role)).toEqual(["_system_prompt", "_checkpoint", "user"]);
    const sent = server.requests[0]!.body!.messages as { role: string; content: string }[];
    expect(sent[0]).toEqual({ role: "system", content: stored!.content });
  }, 30_000);

  it("still keeps no session quit before its first prompt, its system prompt stored", async () => {
    const { terminal, home } = await startAtPrompt();
    await systemPromptStored(home);
    terminal.keys("C-d");
    expect(await terminal.waitFor(/\[exit 0\]/)).toContain("No prompt given: no session saved.");
    expect(await readdir(path.join(home, ".kosong", "sessions"))).toEqual([]);
  }, 30_000);

  it("reports a failed write of the first prompt to session.json after the turn, which goes on and ends as usual, and keeps the session", async () => {
    const { terminal, home } = await startAtPrompt();
    const metadata = path.join(await sessionFolder(home), "session.json");
    // A write that fails at once (EISDIR), while the turn's request is still held open.
    await rm(metadata);
    await mkdir(metadata);
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "First answer." }] }, holdAfter: 1, release: released });
    terminal.line("hello there");
    for (let waited = 0; server.requests.length === 0; waited += 10) {
      if (waited > 20_000) throw new Error("the first request never came");
      await sleep(10);
    }
    // The failed write has settled long before: its open is a syscall, the request a round trip through the SDK.
    await sleep(200);
    release();
    const screen = await terminal.waitFor(/First answer\.[\s\S]*›\s*$/, { from: "› hello there" });
    expect(screen).toMatch(/error:.*session\.json/);
    terminal.keys("C-d");
    expect(await terminal.waitFor(/\[exit \d+\]/)).toContain("[exit 0]");
    expect(await sessionRecords(home)).toContainEqual(expect.objectContaining({ role: "user" }));
  }, 30_000);
});
