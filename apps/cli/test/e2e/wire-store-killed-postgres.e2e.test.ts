/**
 * A `--wire --store` session (its conversation in PostgreSQL, nothing but
 * the empty `context.jsonl` on disk) killed with SIGKILL after a few turns
 * holds a real conversation: `kosong sessions` lists it with its first
 * prompt, and `--continue` goes on with it: its first prompt is in
 * `session.json` while its first turn runs, not only once it closes. Run
 * through the built binary against the run's PostgreSQL test server.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { storedConversation, useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();

/** A `kosong --wire` child: `prompt` sends a prompt and resolves to its result once the turn has ended. */
function wireChild(args: string[], cwd: string, home: string) {
  const child = spawn(process.execPath, [kosongBin, ...args, "--wire"], { cwd, env: cleanEnv(home), stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  const waiting = new Map<string, (result: unknown) => void>();
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: string; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error);
  });
  let next = 0;
  const call = (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      const id = String((next += 1));
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  return { child, exited, initialize: () => call("initialize", { protocol_version: "1.1" }), prompt: (text: string) => call("prompt", { user_input: text }) };
}

describe("a --wire session with --store killed after its first turns", { timeout: 90_000 }, () => {
  it("is listed with its first prompt, and --continue goes on with it", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(cwd);
    // A script per process: each runs its own from the start.
    const scripted = async (name: string, answers: string[]) => {
      await writeFile(path.join(home, name), JSON.stringify(answers.map((text) => `text: ${text}`)));
      return ["--provider", "scripted", "--script", path.join(home, name), "--store", pg.url];
    };
    const wire = wireChild(await scripted("wire.json", ["renamed", "tests renamed"]), cwd, home);
    await wire.initialize();
    expect(await wire.prompt("rename the config loader")).toMatchObject({ status: "finished" });
    expect(await wire.prompt("and its tests")).toMatchObject({ status: "finished" });
    const [id] = await readdir(path.join(home, ".kosong", "sessions"));
    const folder = path.join(home, ".kosong", "sessions", id!);
    // Written while the first turn runs (the request does not wait for it): there before the session closes.
    const recorded = async () => (JSON.parse(await readFile(path.join(folder, "session.json"), "utf8")) as { first_prompt: string | null }).first_prompt;
    await expect.poll(recorded, { timeout: 10_000 }).toBe("rename the config loader");
    wire.child.kill("SIGKILL");
    expect(await wire.exited).toBe("SIGKILL");
    // The store's lock goes once the server sees the killed process's connection close.
    const conversation = () => storedConversation(pg.store, id!).catch(() => []);
    await expect.poll(conversation, { timeout: 10_000 }).toEqual(["user: rename the config loader", "assistant: renamed", "user: and its tests", "assistant: tests renamed"]);
    expect(await readFile(path.join(folder, "context.jsonl"), "utf8")).toBe("");

    const listing = await runKosong(["sessions"], { cwd, home });
    expect(listing.code, listing.stderr).toBe(0);
    expect(listing.stdout).toMatch(new RegExp(`^${id} .*rename the config loader$`, "m"));
    const continued = await runKosong([...(await scripted("continue.json", ["going on"])), "--continue", "-p", "go on"], { cwd, home });
    expect(continued.code, continued.stderr).toBe(0);
    expect(await readdir(path.join(home, ".kosong", "sessions"))).toEqual([id]);
    expect((await conversation()).slice(1)).toEqual(["assistant: renamed", "user: and its tests", "assistant: tests renamed", "user: go on", "assistant: going on"]);
  });
});
