/**
 * `--store` in the interactive mode (in process), conversations in
 * PostgreSQL (the run's test server): /btw, /tree and /fork keep branches
 * and new sessions there, and `--session <id>` opens that session from it.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, runKosong } from "../e2e/kosong-binary.js";
import { storedConversation, useTestStore } from "../e2e/test-store.js";
import { interactiveSuite } from "./interactive-suite.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const url = pg.url;
const { start } = await interactiveSuite({ binary: true });
const conversation = (id: string) => storedConversation(pg.store, id);

/** A home with a project folder and a script of answers for the scripted provider. */
async function setup(answers: string[]) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const script = path.join(home, "script.json");
  await writeFile(script, JSON.stringify(answers));
  const run = (args: string[]) => runKosong(["--provider", "scripted", "--script", script, ...args], { cwd, home });
  const open = (args: string[]) => start(["--provider", "scripted", "--script", script, "--store", url, ...args], { cwd, env: cleanEnv(home) });
  const sessionIds = async () => readdir(path.join(home, ".kosong", "sessions"));
  return { run, open, sessionIds };
}

describe("kosong --store in the terminal", { timeout: 90_000 }, () => {
  it("/btw keeps a side branch, /tree lists it and /fork copies the current branch into a new session, all in PostgreSQL", async () => {
    const { open, sessionIds } = await setup(["text: first answer", "text: an aside"]);
    const terminal = open([]);
    await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    terminal.line("first question");
    await terminal.waitFor(/first answer[\s\S]*›\s*$/, { from: "› first question" });
    terminal.line("/btw an aside?");
    await terminal.waitFor(/Keep this answer as a branch\? \[y\/N\] $/m, { from: "› /btw" });
    terminal.line("y");
    await terminal.waitFor(/Kept as branch 1; the conversation is unchanged\./, { from: "› /btw" });
    terminal.line("/tree");
    await terminal.waitFor(/● current · 2 messages "first question"\n└─ 1  btw at checkpoint \d+ · [^\n]*4 messages · 7 records "an aside\?"/, { from: "› /tree" });
    terminal.line("/fork");
    const screen = await terminal.waitFor(/into session (\S+): kosong --resume/, { from: "› /fork" });
    const forked = /into session (\S+):/.exec(screen)![1]!;
    expect(await conversation(forked)).toEqual(["user: first question", "assistant: first answer"]);
    terminal.keys("C-d");
    await terminal.waitFor(/\[exit 0\]/);
    // The session forked from is unchanged by the side question, and keeps it as a noted rotation.
    const [id] = (await sessionIds()).filter((s) => s !== forked);
    expect(await conversation(id!)).toEqual(["user: first question", "assistant: first answer"]);
    const log = await pg.store.openLog(id!);
    try {
      expect((await log.listRotations()).map((r) => [r.n, r.note?.kind, r.note?.firstPrompt])).toEqual([[1, "btw", "an aside?"]]);
    } finally {
      await log.close();
    }
  });

  it("--session <id> opens that session from PostgreSQL, not the folder's newest", async () => {
    const { run, open } = await setup(["text: first answer", "text: second answer"]);
    expect((await run(["-p", "the older task", "--session", "older-one", "--store", url])).code).toBe(0);
    expect((await run(["-p", "the newer task", "--store", url])).code).toBe(0);
    const terminal = open(["--session", "older-one"]);
    const screen = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
    expect(screen).toContain("Resumed older-one: 2 messages.");
    expect(screen).toContain("the older task");
    expect(screen).not.toContain("the newer task");
    terminal.keys("C-d");
    await terminal.waitFor(/Session saved: older-one[\s\S]*\[exit 0\]/);
  });
});
