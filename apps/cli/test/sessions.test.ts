import { mkdir, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { printSessions, runSessionsCommand } from "../src/sessions/print-sessions.js";
import { createSession, findSession, latestSession, listSessions, openOrCreateSession, recordFirstPrompt, secureSessionFiles } from "../src/sessions/session-store.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("session store", () => {
  it("opens the session with exactly the id --session names, or creates it with that id; refuses an id that is not a plain folder name", async () => {
    const home = await tempDir();
    const uuid = "0b6f1c9e-2f1a-4b7e-9a57-2d1f3c4b5a6e";
    const created = await openOrCreateSession(home, "/work/a", uuid);
    expect(created.id).toBe(uuid);
    expect(created.dir).toBe(path.join(home, "sessions", uuid));
    expect((await openOrCreateSession(home, "/work/a", uuid)).createdAt).toBe(created.createdAt);
    expect((await openOrCreateSession(home, "/work/a", uuid.slice(0, 8))).id).toBe(uuid.slice(0, 8));
    for (const bad of ["..", "../escape", "a/b", "", "x".repeat(129), "a\ud800"]) await expect(openOrCreateSession(home, "/work/a", bad)).rejects.toThrow(/not a valid session id/);
  });

  it("creates private session folders and finds them by id prefix and by directory", async () => {
    const home = await tempDir();
    const a = await createSession(home, "/work/a", new Date("2026-01-01T10:00:00Z"));
    const b = await createSession(home, "/work/b", new Date("2026-01-02T10:00:00Z"));
    expect(a.id).toMatch(/^20260101-100000-[0-9a-f]{4}$/);
    expect((await stat(a.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(a.contextFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(a.dir, "session.json"))).mode & 0o777).toBe(0o600);
    await recordFirstPrompt(a, "fix the tests");
    const line = '{"role":"user","content":"fix the tests"}\n';
    await writeFile(a.contextFile, line);
    await recordFirstPrompt(b, "write the docs");
    await utimes(b.contextFile, new Date("2020-01-01"), new Date("2020-01-01"));
    const listed = await listSessions(home);
    expect(listed.map((s) => s.id)).toEqual([a.id, b.id]);
    expect(listed[0]).toMatchObject({ cwd: "/work/a", firstPrompt: "fix the tests", size: Buffer.byteLength(line) });
    expect((await findSession(home, a.id.slice(0, 10))).id).toBe(a.id);
    await expect(findSession(home, "2026")).rejects.toThrow(/matches 2 sessions/);
    await expect(findSession(home, "nope")).rejects.toThrow(/No session "nope"/);
    await expect(findSession(home, `${a.id.slice(0, 10)}\ud800`)).rejects.toThrow(/not well-formed Unicode/);
    expect((await latestSession(home, "/work/b")).id).toBe(b.id);
    await expect(latestSession(home, "/elsewhere")).rejects.toThrow(/No session to continue/);
  });

  it("keeps rotations private too", async () => {
    const home = await tempDir();
    const s = await createSession(home, "/w");
    await writeFile(path.join(s.dir, "context_1.jsonl"), "", { mode: 0o644 });
    await mkdir(path.join(s.dir, "jobs"), { mode: 0o755 });
    await secureSessionFiles(s);
    expect((await stat(path.join(s.dir, "context_1.jsonl"))).mode & 0o777).toBe(0o600);
    // A folder stays one its owner can enter (a resumed session writes its job logs and journal there).
    expect((await stat(path.join(s.dir, "jobs"))).mode & 0o777).toBe(0o700);
  });

  it("lists sessions as a table", async () => {
    const home = await tempDir();
    let out = "";
    const sink = { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream;
    await printSessions(home, sink);
    expect(out).toContain("No sessions yet");
    const s = await createSession(home, "/work/project");
    await recordFirstPrompt(s, "explain\nthis   repo");
    out = "";
    await printSessions(home, sink);
    const [header, row] = out.trim().split("\n");
    expect(header).toMatch(/^ID\s+DIRECTORY\s+SIZE\s+ON DISK\s+LAST USED\s+FIRST PROMPT$/);
    expect(row).toContain(s.id);
    expect(row).toContain("/work/project");
    expect(row).toContain("0 B");
    expect(row).toMatch(/explain this repo$/);
  });

  it("keeps the table's columns aligned on the screen when a directory has wide characters, and never cuts a character of the first prompt in half", async () => {
    const home = await tempDir();
    const wide = await createSession(home, "/work/项目", new Date("2026-01-01T10:00:00Z"));
    await recordFirstPrompt(wide, `${"a".repeat(58)}😀 and more after the cut`);
    await recordFirstPrompt(await createSession(home, "/work/project-x", new Date("2026-01-02T10:00:00Z")), "plain");
    let out = "";
    await printSessions(home, { write: (chunk: string) => ((out += chunk), true) } as unknown as NodeJS.WritableStream);
    const lines = out.trim().split("\n");
    // The terminal column where SIZE starts (the header) and where each row's size starts.
    const columnOf = (line: string, at: number) => stringWidth(line.slice(0, at));
    const sizeColumns = [columnOf(lines[0]!, lines[0]!.indexOf("SIZE")), ...lines.slice(1).map((line) => columnOf(line, line.indexOf(" B ") - 1))];
    expect(new Set(sizeColumns).size, out).toBe(1);
    expect(lines.every((line) => line.isWellFormed()), out).toBe(true);
  });

  it("lists the sessions on disk, with a warning, when the PostgreSQL store cannot be reached", async () => {
    const home = await tempDir();
    const s = await createSession(home, "/work/project");
    await recordFirstPrompt(s, "on disk");
    let out = "";
    let err = "";
    const sink = (add: (chunk: string) => void) => ({ write: (chunk: string) => (add(chunk), true) }) as unknown as NodeJS.WritableStream;
    const code = await runSessionsCommand("postgresql://kosong:secret@127.0.0.1:1/kosong", home, sink((c) => (out += c)), sink((c) => (err += c)));
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^${s.id} .*on disk$`, "m"));
    expect(err).toMatch(/^kosong: the PostgreSQL store could not be read \(.*\): only the sessions on disk are listed\.$/m);
    expect(err).not.toContain("secret");
  });
});
