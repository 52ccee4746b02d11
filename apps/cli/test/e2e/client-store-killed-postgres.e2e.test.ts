/**
 * A `--wire` or `kosong acp` session with `--store` (its conversation in
 * PostgreSQL, nothing but the empty `context.jsonl` on disk) killed with
 * SIGKILL after a few turns holds a real conversation: `kosong sessions`
 * lists it with its first prompt, and `--continue` goes on with it. Its
 * first prompt is in `session.json` while its first turn runs, not only once
 * it closes. Run through the built binary against the run's PostgreSQL test
 * server, the prompts sent as a wire client and an ACP editor send them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv, kosongBin, runKosong } from "./kosong-binary.js";
import { storedConversation, useTestStore } from "./test-store.js";

const tempDir = useTempDirs();
const pg = useTestStore();

/** A project with `--store` options whose scripted model answers `answers` (a script per process: each runs its own from the start). */
async function project() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  let scripts = 0;
  const options = async (answers: string[]) => {
    const script = path.join(home, `script-${(scripts += 1)}.json`);
    await writeFile(script, JSON.stringify(answers.map((text) => `text: ${text}`)));
    return ["--provider", "scripted", "--script", script, "--store", pg.url];
  };
  const spawnKosong = async (answers: string[], mode: string[]) => spawn(process.execPath, [kosongBin, ...(await options(answers)), ...mode], { cwd, env: cleanEnv(home), stdio: ["pipe", "pipe", "inherit"] });
  return { home, cwd, options, spawnKosong };
}

/** Sends JSON-RPC requests (wire's, ACP's) to `child`, resolving to their results (or errors); its notifications are let go. */
function jsonRpcCalls(child: ChildProcess) {
  const waiting = new Map<string, (result: unknown) => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: string; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error);
  });
  let next = 0;
  return (method: string, params: object) =>
    new Promise<unknown>((resolve) => {
      const id = String((next += 1));
      waiting.set(id, resolve);
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
}

/**
 * Once the session of `home` has its first prompt in `session.json`, kills
 * `child` with SIGKILL; then checks that the conversation is in the store,
 * listed with `first`, and continued by `--continue`.
 */
async function killAndContinue(setup: Awaited<ReturnType<typeof project>>, child: ChildProcess, first: string, conversation: string[]): Promise<void> {
  const { home, cwd } = setup;
  const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  const [id] = await readdir(path.join(home, ".kosong", "sessions"));
  const folder = path.join(home, ".kosong", "sessions", id!);
  // Written while the first turn runs (the request does not wait for it): there before the session closes.
  const recorded = async () => (JSON.parse(await readFile(path.join(folder, "session.json"), "utf8")) as { first_prompt: string | null }).first_prompt;
  await expect.poll(recorded, { timeout: 10_000 }).toBe(first);
  child.kill("SIGKILL");
  expect(await exited).toBe("SIGKILL");
  // The store's lock goes once the server sees the killed process's connection close.
  const stored = () => storedConversation(pg.store, id!).catch(() => []);
  await expect.poll(stored, { timeout: 10_000 }).toEqual(conversation);
  expect(await readFile(path.join(folder, "context.jsonl"), "utf8")).toBe("");

  const listing = await runKosong(["sessions"], { cwd, home });
  expect(listing.code, listing.stderr).toBe(0);
  expect(listing.stdout).toMatch(new RegExp(`^${id} .*${first}$`, "m"));
  const continued = await runKosong([...(await setup.options(["going on"])), "--continue", "-p", "go on"], { cwd, home });
  expect(continued.code, continued.stderr).toBe(0);
  expect(await readdir(path.join(home, ".kosong", "sessions"))).toEqual([id]);
  expect(await stored()).toEqual([...conversation, "user: go on", "assistant: going on"]);
}

describe("a client's session with --store killed after its first turns", { timeout: 90_000 }, () => {
  it("--wire: listed with its first prompt, and --continue goes on with it", async () => {
    const setup = await project();
    const child = await setup.spawnKosong(["renamed", "tests renamed"], ["--wire"]);
    const call = jsonRpcCalls(child);
    await call("initialize", { protocol_version: "1.1" });
    expect(await call("prompt", { user_input: "rename the config loader" })).toMatchObject({ status: "finished" });
    expect(await call("prompt", { user_input: "and its tests" })).toMatchObject({ status: "finished" });
    await killAndContinue(setup, child, "rename the config loader", ["user: rename the config loader", "assistant: renamed", "user: and its tests", "assistant: tests renamed"]);
  });

  it("kosong acp: listed with its first prompt, and --continue goes on with it", async () => {
    const setup = await project();
    const child = await setup.spawnKosong(["typo fixed", "linted"], ["acp"]);
    const call = jsonRpcCalls(child);
    await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await call("session/new", { cwd: setup.cwd, mcpServers: [] })) as { sessionId: string };
    expect(await call("session/prompt", { sessionId, prompt: [{ type: "text", text: "fix the typo" }] })).toEqual({ stopReason: "end_turn" });
    expect(await call("session/prompt", { sessionId, prompt: [{ type: "text", text: "lint it" }] })).toEqual({ stopReason: "end_turn" });
    await killAndContinue(setup, child, "fix the typo", ["user: fix the typo", "assistant: typo fixed", "user: lint it", "assistant: linted"]);
  });
});
