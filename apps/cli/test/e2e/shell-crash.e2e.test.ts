/**
 * A Shell command running when kosong is SIGKILLed, through the built
 * binary: the command's process group ends with kosong (nothing is left
 * orphaned to PID 1, a child it put in the background included), and the
 * continued conversation answers the cut call with a result the model reads,
 * saying it was interrupted and which files it changed.
 */
import { access, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };
const call = (id: string, name: string, args: object) => ({ type: "function" as const, id, function: { name, arguments: JSON.stringify(args) } });

/** The pids of processes whose command line contains `marker` (read from /proc: the same inside and outside the sandbox). */
async function processesWith(marker: string): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) found.push(Number(pid));
  }
  return found;
}

/** Waits until no process has `marker` in its command line, at most `attempts` polls of 50 ms; returns those still there. */
async function survivors(marker: string, attempts = 100): Promise<number[]> {
  let left = await processesWith(marker);
  for (let i = 0; i < attempts && left.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await processesWith(marker);
  }
  return left;
}

/** Runs a turn whose Shell command (changing a.txt, creating new.txt, with a child in the background) is running when kosong is SIGKILLed. */
async function crashDuringShell(sandbox: string) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await writeFile(path.join(cwd, "a.txt"), "mine\n");
  const marker = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const sleep = `exec sleep 120.${marker} </dev/null >/dev/null 2>&1`;
  const command = `echo more >> a.txt; echo new > new.txt; (${sleep}) & echo $$ > pid; ${sleep}`;
  fake.server.enqueue({ message: { role: "assistant", content: [], tool_calls: [call("s1", "Shell", { command })] }, usage });
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  // The command's processes seen just before the kill: the survivors check below is not vacuous.
  let running: number[] = [];
  let killing = false;
  const killed = await runKosong(["-p", "run it", "--yolo", "--sandbox", sandbox], {
    cwd,
    home,
    env,
    onSpawn: (child) => {
      const poll = setInterval(() => {
        access(path.join(cwd, "pid")).then(
          async () => {
            if (killing) return;
            killing = true;
            clearInterval(poll);
            running = await processesWith(marker);
            child.kill("SIGKILL");
          },
          () => undefined,
        );
      }, 20);
    },
  });
  expect(killed.signal).toBe("SIGKILL");
  expect(running.length, "the command's processes before the kill").toBeGreaterThan(0);
  return { home, cwd, env, marker };
}

describe("a Shell command when kosong is SIGKILLed, the built binary", { timeout: 60_000 }, () => {
  it.each(["off", "on"])("ends with kosong, a child it put in the background too (sandbox %s)", async (sandbox) => {
    const { marker } = await crashDuringShell(sandbox);
    const left = await survivors(marker);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(left, "processes of the command left running after kosong died").toEqual([]);
  });

  it("is answered in the continued conversation: the model reads that the call was interrupted and which files it changed", async () => {
    const { home, cwd, env, marker } = await crashDuringShell("off");
    for (const pid of await survivors(marker)) process.kill(pid, "SIGKILL");
    fake.server.enqueue({ message: { role: "assistant", content: [{ type: "text", text: "ok" }] }, usage });
    const continued = await runKosong(["-p", "go on", "--continue"], { cwd, home, env });
    expect(continued.code, continued.stderr).toBe(0);
    const sent = fake.server.requests.at(-1)!.body!.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>;
    const answer = sent.find((message) => message.role === "tool" && message.tool_call_id === "s1");
    expect(answer, JSON.stringify(sent)).toBeDefined();
    const text = JSON.stringify(answer!.content);
    expect(text).toContain("interrupted");
    expect(text).toContain("a.txt");
    expect(text).toContain("new.txt");
  });
});
