/**
 * Background commands through the built binary against the fake OpenAI
 * server, with real processes in the Shell sandbox: a tiny node HTTP dev
 * server started with `run_in_background`, polled with TaskOutput, the
 * model told when it ends, stopped by TaskStop and by kosong's exit (its
 * end of a turn, and SIGTERM), and no process of it left behind.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../ensure-bubblewrap.js";
import { useTempDirs } from "../temp-dir.js";
import { devServer, processesWith } from "./dev-server.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

// Under /var/tmp: a sandboxed command has a private /tmp.
const tempDir = useTempDirs("/var/tmp");
const fake = useFakeProviderServer();
const usage = { input_other: 50, output: 5, input_cache_read: 0, input_cache_creation: 0 };
const say = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
let calls = 0;
const call = (name: string, args: object): Message => ({ role: "assistant", content: [], tool_calls: [{ type: "function", id: `c${++calls}`, function: { name, arguments: JSON.stringify(args) } }] });

async function setup() {
  ensureBubblewrap();
  const home = await tempDir("kosong-jobs-e2e-");
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  const marker = `devserver-${path.basename(home)}.cjs`;
  await writeFile(path.join(cwd, marker), devServer);
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  const start = `${process.execPath} ${marker}`;
  /** The tool results the model read in request `n`, as one string. */
  const toolResults = (n: number) => JSON.stringify((fake.server.requests[n]?.body?.messages as { role: string }[] | undefined)?.filter((m) => m.role === "tool") ?? []);
  const sessionDir = async () => path.join(home, ".kosong", "sessions", (await readdir(path.join(home, ".kosong", "sessions")))[0]!);
  return { home, cwd, marker, env, start, toolResults, sessionDir };
}

describe("background commands (Shell run_in_background, TaskOutput, TaskStop)", { timeout: 90_000 }, () => {
  it("starts a dev server, polls it, and tells the model when it ends; its output is kept in the session folder", async () => {
    const { home, cwd, marker, env, start, toolResults, sessionDir } = await setup();
    fake.server.enqueue(
      { message: call("Shell", { command: start, run_in_background: true }), usage },
      { message: call("TaskOutput", { job_id: "job-1", block: true, timeout: 20 }), usage },
      { message: call("Shell", { command: "touch quit; while [ ! -e server.done ]; do sleep 0.05; done; sleep 0.3" }), usage },
      { message: call("Shell", { command: "true" }), usage },
      { message: say("Done."), usage },
    );
    const run = await runKosong(["-p", "run the dev server", "--yolo"], { cwd, home, env });
    expect(run.code, run.stderr).toBe(0);
    // The job ran in the Shell's sandbox.
    expect(JSON.stringify(fake.server.requests[0]!.body!.tools)).toContain("Commands run in a sandbox");
    expect(toolResults(1)).toMatch(/Started background job job-1/);
    expect(toolResults(2)).toMatch(/job-1 .*: running/);
    expect(toolResults(2)).toMatch(/listening on \d+/);
    // The end reaches the model with the next tool result, unasked.
    expect(toolResults(4)).toMatch(/Background job job-1 exited with code 3/);
    expect(toolResults(4).match(/Background job job-1 exited/g)).toHaveLength(1);
    const log = await readFile(path.join(await sessionDir(), "jobs", "job-1.log"), "utf8");
    expect(log).toMatch(/^listening on \d+\nquitting\n$/);
    expect(processesWith(marker)).toEqual([]);
  });

  it("TaskStop ends a running job's whole process group, and ending kosong ends the others", async () => {
    const { home, cwd, marker, env, start, toolResults } = await setup();
    fake.server.enqueue(
      // The job's shell starts the server in the background of its own group, as `npm run dev` would.
      { message: call("Shell", { command: `${start} & wait`, run_in_background: true }), usage },
      { message: call("Shell", { command: start, run_in_background: true }), usage },
      { message: call("TaskOutput", { job_id: "job-1", block: true, timeout: 20 }), usage },
      { message: call("TaskStop", { job_id: "job-1" }), usage },
      { message: call("TaskOutput", { job_id: "job-2", block: true, timeout: 20 }), usage },
      { message: say("Leaving job-2 running."), usage },
    );
    const run = await runKosong(["-p", "two servers", "--yolo"], { cwd, home, env });
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(3)).toMatch(/listening on \d+/);
    expect(toolResults(4)).toMatch(/Stopped\. Job job-1 .*: stopped \(SIGTERM\)/);
    expect(toolResults(5)).toMatch(/job-2 .*: running/);
    expect(processesWith(marker)).toEqual([]);
  });

  it("SIGTERM to kosong while a job runs ends the job too", async () => {
    const { home, cwd, marker, env, start, sessionDir } = await setup();
    let runningBefore = 0;
    fake.server.enqueue(
      { message: call("Shell", { command: start, run_in_background: true }), usage },
      { message: call("Shell", { command: "sleep 60" }), usage },
      { message: say("never"), usage },
    );
    const run = await runKosong(["-p", "serve", "--yolo"], {
      cwd,
      home,
      env,
      onSpawn: (child) => {
        const poll = setInterval(async () => {
          const log = await readFile(path.join(await sessionDir().catch(() => home), "jobs", "job-1.log"), "utf8").catch(() => "");
          if (!log.includes("listening")) return;
          clearInterval(poll);
          runningBefore = processesWith(marker).length;
          child.kill("SIGTERM");
        }, 50);
      },
    });
    expect(run.code).not.toBe(0);
    // The check sees the server while it runs (in the sandbox too), and nothing of it after.
    expect(runningBefore).toBeGreaterThan(0);
    expect(processesWith(marker)).toEqual([]);
  });
});
