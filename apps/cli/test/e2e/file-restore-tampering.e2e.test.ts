/**
 * File restore with `--file-restore scan` under tampering, through the built
 * binary against the fake provider server: one step runs Shell `echo more >>
 * a.txt; echo made > b.txt` and WriteFile `a.txt` and `b.txt` (either
 * order), and a D-Mail back to the
 * checkpoint before it brings back the content at the checkpoint, never the
 * moment between the two tools; and when a hostile `.gitignore` pushes every
 * scan over its limit, the revert report the user sees names the command
 * that was not journaled, and why.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { say, useFakeModel, usage } from "./fake-model.js";

const tempDir = useTempDirs();
const fake = useFakeModel();
const call = (id: string, name: string, args: object) => ({ type: "function" as const, id, function: { name, arguments: JSON.stringify(args) } });
const dmail: Message = { role: "assistant", content: [], tool_calls: [call("d1", "SendDMail", { message: "undo that", checkpoint_id: 0 })] };

/** A workspace holding `files`, and a print-mode turn answering with `messages` (the first streamed with `chunkDelayMs` between frames); the run, its revert reports, and a reader of the files after it. */
async function turn(files: Record<string, string>, messages: Message[], chunkDelayMs = 0) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(cwd, name), content);
  for (const [i, message] of messages.entries()) fake.server.enqueue({ message, usage, chunkDelayMs: i === 0 ? chunkDelayMs : 0 });
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  const run = await runKosong(["-p", "change things", "--yolo", "--dmail", "--file-restore", "scan", "--output-format", "stream-json"], { cwd, home, env });
  const read = (name: string) => readFile(path.join(cwd, name), "utf8").catch(() => null);
  return { run, reverts: revertReports(run.stdout), read };
}

/** The file reports of the `Reverted` events among the JSON lines of `stdout`. */
function revertReports(stdout: string): unknown[] {
  const events = stdout.trim().split("\n").map((line) => parseEvent(line));
  return events.flatMap((e) => (e.type === "Reverted" ? [e.payload.files] : []));
}

describe("file restore under tampering, the built binary", { timeout: 60_000 }, () => {
  it("Shell appending to a file (and creating one) and WriteFile writing them in one step: the revert brings back the checkpoint's content (either order)", async () => {
    // The model's answer streams slowly: Shell starts (and writes) before the WriteFile calls arrive, and is still running when they do.
    const shell = call("s1", "Shell", { command: "echo more >> a.txt; echo made > b.txt; sleep 1.5" });
    const writes = [call("w1", "WriteFile", { path: "a.txt", content: "WRITTEN\n" }), call("w2", "WriteFile", { path: "b.txt", content: "WRITTEN\n" })];
    for (const calls of [[shell, ...writes], [...writes, shell]]) {
      const { run, reverts, read } = await turn({ "a.txt": "ORIG-A\n" }, [{ role: "assistant", content: [], tool_calls: calls }, dmail, say("done")], 250);
      expect(run.code, run.stderr).toBe(0);
      expect(fake.server.requests.length).toBeGreaterThanOrEqual(3);
      expect({ a: await read("a.txt"), b: await read("b.txt") }).toEqual({ a: "ORIG-A\n", b: null });
      expect(reverts).toEqual([{ restored: ["a.txt", "b.txt"], skipped: [], conflicts: [] }]);
      fake.server.reset();
    }
  });

  it("a hostile .gitignore pushing every scan over its limit: the revert report names the command not journaled, and why", async () => {
    // 70 KiB of patterns whose matching backtracks without end.
    const hostile = Array.from({ length: 1800 }, (_, i) => `${"*a".repeat(18)}*b${i}`).join("\n");
    expect(hostile.length).toBeGreaterThan(70 * 1024);
    const created = call("s1", "Shell", { command: "echo left > created-by-shell.txt" });
    const files = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${"a".repeat(120)}${i}.txt`, "x\n"]));
    const { run, reverts, read } = await turn({ ".gitignore": hostile, ...files }, [{ role: "assistant", content: [], tool_calls: [created] }, dmail, say("done")]);
    expect(run.code, run.stderr).toBe(0);
    // The file stays (its creation was not journaled), and the user is told which command and why.
    expect(await read("created-by-shell.txt")).toBe("left\n");
    expect(reverts).toEqual([
      expect.objectContaining({ commandsNotJournaled: [{ command: "echo left > created-by-shell.txt", reason: expect.stringMatching(/\.gitignore.*not journaled/s) }] }),
    ]);
  });
});
