/**
 * `--store` / `KOSONG_STORE_URL`: the built binary keeps a saved session's
 * conversation in PostgreSQL (the run's test server), continues it from
 * there, and loads the PostgreSQL package only when asked to.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { extractText } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { formatSize } from "../../src/sessions/print-sessions.js";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { useTestStore } from "./test-store.js";
import { ensureTmux, TmuxTerminal } from "./tmux-terminal.js";

const tempDir = useTempDirs();
const pg = useTestStore();
const url = pg.url;

/** Logs to stderr every import of the PostgreSQL package or client the process resolves. */
const loadHook = `
import { registerHooks } from "node:module";
import { writeSync } from "node:fs";
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "pg" || specifier === "@kosong/context-postgres") writeSync(2, "loaded " + specifier + "\\n");
    return next(specifier, context);
  },
});
`;

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const script = path.join(home, "script.json");
  await writeFile(script, JSON.stringify(["text: first answer", "text: second answer"]));
  const hook = path.join(home, "load-hook.mjs");
  await writeFile(hook, loadHook);
  const env = { NODE_OPTIONS: `--import=${hook}` };
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runKosong(["--provider", "scripted", "--script", script, ...args], { cwd, home, env: { ...env, ...extra } });
  const sessionIds = async () => readdir(path.join(home, ".kosong", "sessions"));
  return { home, run, sessionIds };
}

const conversation = async (id: string) => {
  const log = await pg.store.openLog(id);
  try {
    return (await log.read()).messages.filter((m) => m.role !== "user" || !extractText(m).startsWith("<system>")).map((m) => `${m.role}: ${extractText(m)}`);
  } finally {
    await log.close();
  }
};

describe("kosong --store (conversations in PostgreSQL)", { timeout: 90_000 }, () => {
  it("keeps a saved session's conversation in PostgreSQL and continues it there (KOSONG_STORE_URL)", async () => {
    const { home, run, sessionIds } = await setup();
    const first = await run(["-p", "first question", "--store", url]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe("first answer\n");
    expect(first.stderr).toContain("loaded @kosong/context-postgres");
    const [id] = await sessionIds();
    expect(await conversation(id!)).toEqual(["user: first question", "assistant: first answer"]);
    // The session's folder is on disk, its conversation is not.
    expect(await readFile(path.join(home, ".kosong", "sessions", id!, "context.jsonl"), "utf8")).toBe("");

    const second = await run(["-p", "second question", "--continue"], { KOSONG_STORE_URL: url });
    expect(second.code, second.stderr).toBe(0);
    expect(await conversation(id!)).toEqual(["user: first question", "assistant: first answer", "user: second question", "assistant: first answer"]);
    // `kosong sessions` (and the picker, from the same listing) shows the conversation's size in the database, not the empty file's.
    const bytes = await pg.store.sessionBytes(id!);
    expect(bytes).toBeGreaterThan(100);
    const listed = await run(["sessions"]);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  \\S+ +${formatSize(bytes).replace(".", "\\.")} `, "m"));
    expect(listed.stdout).not.toMatch(/ 0 B /);
  });

  it("/btw keeps a side branch, /tree lists it and /fork copies the current branch into a new session, all in PostgreSQL (tmux)", async () => {
    ensureTmux();
    const { home, sessionIds } = await setup();
    await writeFile(path.join(home, "script.json"), JSON.stringify(["text: first answer", "text: an aside"]));
    const argv = [process.execPath, kosongBin, "--provider", "scripted", "--script", path.join(home, "script.json"), "--store", url];
    const terminal = TmuxTerminal.start(argv, { cwd: path.join(home, "project"), env: cleanEnv(home) });
    let forked = "";
    try {
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
      forked = /into session (\S+):/.exec(screen)![1]!;
      expect(await conversation(forked)).toEqual(["user: first question", "assistant: first answer"]);
      terminal.keys("C-d");
      await terminal.waitFor(/\[exit 0\]/);
    } finally {
      terminal.close();
    }
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

  it("--session <id> in the terminal opens that session from PostgreSQL, not the folder's newest (tmux)", async () => {
    ensureTmux();
    const { home, run } = await setup();
    expect((await run(["-p", "the older task", "--session", "older-one", "--store", url])).code).toBe(0);
    expect((await run(["-p", "the newer task", "--store", url])).code).toBe(0);
    const argv = [process.execPath, kosongBin, "--provider", "scripted", "--script", path.join(home, "script.json"), "--store", url, "--session", "older-one"];
    const terminal = TmuxTerminal.start(argv, { cwd: path.join(home, "project"), env: cleanEnv(home) });
    try {
      const screen = await terminal.waitFor(/Ctrl-D exits[\s\S]*›\s*$/m);
      expect(screen).toContain("Resumed older-one: 2 messages.");
      expect(screen).toContain("the older task");
      expect(screen).not.toContain("the newer task");
      terminal.keys("C-d");
      await terminal.waitFor(/Session saved: older-one[\s\S]*\[exit 0\]/);
    } finally {
      terminal.close();
    }
  });

  it("never loads the PostgreSQL package when conversations are in files", async () => {
    const { run, sessionIds, home } = await setup();
    const result = await run(["-p", "a question"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("loaded");
    const [id] = await sessionIds();
    expect(await readFile(path.join(home, ".kosong", "sessions", id!, "context.jsonl"), "utf8")).toContain("a question");
  });

  it("refuses --store with --resume-file, and reports a server that refuses the login", async () => {
    const { run, home } = await setup();
    const file = path.join(home, "context.jsonl");
    await writeFile(file, "");
    const both = await run(["-p", "x", "--resume-file", file, "--store", url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--store keeps saved sessions in PostgreSQL");
    const wrong = new URL(url);
    wrong.password = "not-the-password";
    const refused = await run(["-p", "x", "--store", wrong.toString()]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot open postgres:kosong: cannot migrate the schema: password authentication failed/);
  });
});
