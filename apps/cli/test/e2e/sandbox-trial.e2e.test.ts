/**
 * When the Shell sandbox's trial start (bwrap running `true` in a sandbox as
 * strict as a command's) runs, through the built binary in print mode: not
 * before the first request (its process would hold it up) but as the model
 * begins its first Shell call (while the call's arguments still stream, so
 * the command does not wait for the trial after them), and the command then
 * runs sandboxed; and a bwrap that cannot
 * start a sandbox still leaves Shell commands as without one (the notice
 * says so; print mode refuses them without --yolo, auto-allow or not).
 *
 * A `bwrap` first on the PATH notes each run and runs the real one (or fails
 * as bwrap does where user namespaces are off). The folders live under
 * /var/tmp: a sandbox has a private /tmp.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../ensure-bubblewrap.js";
import { useTempDirs } from "../temp-dir.js";
import { runKosong } from "./kosong-binary.js";
import { kosongSuite } from "./kosong-suite.js";

const { server } = await kosongSuite();
const realBwrap = ensureBubblewrap();

const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const shell = (id: string, command: string): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id, function: { name: "Shell", arguments: JSON.stringify({ command }) } }] });
const tempDir = useTempDirs("/var/tmp");

/** A HOME with `sandbox = "auto-allow"`, a workspace and a folder beside it, and a noting `bwrap` (running `body`) first on the PATH. */
async function setup(body: string) {
  const home = await tempDir("kosong-sandbox-trial-");
  const cwd = path.join(home, "project");
  const outside = path.join(home, "outside");
  const bin = path.join(home, "bin");
  for (const dir of [cwd, outside, bin, path.join(home, ".kosong")]) await mkdir(dir);
  await writeFile(path.join(home, ".kosong", "config.toml"), 'sandbox = "auto-allow"\n');
  const log = path.join(home, "bwrap-runs.log");
  await writeFile(path.join(bin, "bwrap"), `#!/bin/sh\necho "$*" >> '${log}'\n${body}\n`);
  await chmod(path.join(bin, "bwrap"), 0o755);
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1`, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` };
  const run = (args: string[]) => runKosong(args, { cwd, home, env });
  const runs = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return { cwd, outside, run, runs };
}

/** The Shell tool's description in the first request the server received. */
function shellDescription(): string {
  const tools = server.requests[0]!.body!.tools as { function: { name: string; description: string } }[];
  return tools.find((tool) => tool.function.name === "Shell")!.function.description;
}

describe("the sandbox's trial start", { timeout: 60_000 }, () => {
  it("does not run before the first request; the first Shell command tries the sandbox and runs in it", async () => {
    const { cwd, outside, run, runs } = await setup(`exec '${realBwrap}' "$@"`);
    server.enqueue({ message: say("Hi."), usage });
    const quiet = await run(["-p", "hi"]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain("Hi.");
    expect(await runs()).toEqual([]);
    // The model is still told about the sandbox, as before.
    expect(shellDescription()).toContain("Commands run in a sandbox");

    server.reset();
    server.enqueue({ message: shell("s", `echo made > made.txt; touch ${outside}/escaped`), usage }, { message: say("Done."), usage });
    const result = await run(["-p", "make a file"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(await readFile(path.join(cwd, "made.txt"), "utf8")).toBe("made\n");
    expect(existsSync(path.join(outside, "escaped"))).toBe(false);
    const [trial, command, ...rest] = await runs();
    expect(trial).toMatch(/--unshare-all .*-- true$/);
    expect(command).toContain("echo made > made.txt");
    expect(rest).toEqual([]);
  });

  it("starts as the model begins a Shell call, before the call's arguments have all come", async () => {
    const { cwd, run, runs } = await setup(`exec '${realBwrap}' "$@"`);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // Three frames: the role, the call's id and name, the first few characters of its arguments; the rest waits for `release`.
    server.enqueue({ message: shell("s", "echo made > made.txt"), usage, argumentsChunkSize: 4, holdAfter: 3, release: released }, { message: say("Done."), usage });
    const turn = run(["-p", "make a file"]);
    let trialWhileStreaming: string | undefined;
    for (let polls = 0; polls < 200 && trialWhileStreaming === undefined; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      trialWhileStreaming = (await runs())[0];
    }
    release();
    const result = await turn;
    expect(result.code, result.stderr).toBe(0);
    expect(trialWhileStreaming).toMatch(/--unshare-all .*-- true$/);
    const [, command, ...rest] = await runs();
    expect(command).toContain("echo made > made.txt");
    expect(rest).toEqual([]);
    expect(await readFile(path.join(cwd, "made.txt"), "utf8")).toBe("made\n");
  });

  it("with a bwrap that cannot start a sandbox, says so and leaves the command as without a sandbox (refused in print mode without --yolo)", async () => {
    const { cwd, run, runs } = await setup(`echo 'bwrap: No permissions to create new namespace' >&2\nexit 1`);
    server.enqueue({ message: shell("s", "echo made > made.txt"), usage }, { message: say("Done."), usage });
    const result = await run(["-p", "make a file"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'Shell commands run without a sandbox: bubblewrap cannot start a sandbox here (bwrap: No permissions to create new namespace); user namespaces may be disabled (e.g. in a container). They ask for approval as before (sandbox = "auto-allow" needs the sandbox).',
    );
    expect(result.stderr).toContain("refused without --yolo (print mode cannot ask): Shell: Run: echo made > made.txt");
    expect(existsSync(path.join(cwd, "made.txt"))).toBe(false);
    // The trial ran once; no command went to that bwrap.
    expect(await runs()).toHaveLength(1);
  });
});
