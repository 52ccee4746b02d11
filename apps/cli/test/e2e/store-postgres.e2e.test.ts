/**
 * `--store` / `KOSONG_STORE_URL`: the built binary keeps a saved session's
 * conversation in PostgreSQL (the run's test server), continues it from
 * there, and loads the PostgreSQL package only when asked to (in the
 * terminal: ../interactive/store-postgres.test.ts).
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatSize } from "../../src/sessions/print-sessions.js";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { storedConversation, useTestStore } from "./test-store.js";

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

const conversation = (id: string) => storedConversation(pg.store, id);

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
