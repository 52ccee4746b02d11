import type { ChildProcess } from "node:child_process";
import { copyFile, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "@kosong/core";
import { startFakeProviderServer, type FakeProviderServer } from "@kosong/core/testing";
import { parseEvent, type SoulEvent } from "@kosong/soul";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { ensureBuilt, fixturesDir, kosongBin, type KosongRun, runKosong } from "./kosong-binary.js";

const tempDir = useTempDirs();
let server: FakeProviderServer;

beforeAll(async () => {
  ensureBuilt();
  server = await startFakeProviderServer();
}, 300_000);
afterAll(() => server.close());
beforeEach(() => server.reset());

const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const callTool = (id: string, name: string, args: object): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }],
});
const usage = { input_other: 120, output: 8, input_cache_read: 0, input_cache_creation: 0 };

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  const openai = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const run = (args: string[], env: Record<string, string> = openai, stdin?: string) => runKosong(args, { cwd, home, env, stdin });
  return { home, cwd, run, openai };
}

/** Awaits a run and checks it exited 0 (showing its stderr when not). */
async function succeeds(running: Promise<KosongRun>): Promise<KosongRun> {
  const result = await running;
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** The messages of the `n`th request the server received (OpenAI chat format). */
function requestMessages(n: number): { role: string; content?: unknown; tool_call_id?: string }[] {
  return server.requests[n]!.body!.messages as { role: string; content?: unknown; tool_call_id?: string }[];
}

describe("kosong -p (print mode), the built binary against the fake provider server", { timeout: 90_000 }, () => {
  it("prints the streamed answer as text and exits 0", async () => {
    const { run } = await setup();
    server.enqueue({ message: assistant("Hello from the model."), usage });
    const result = await run(["-p", "say hello", "--model", "test-model"]);
    expect(result.stderr).toBe("");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Hello from the model.\n");
    expect(server.requests[0]!.path).toBe("/v1/chat/completions");
    expect(server.requests[0]!.body!.model).toBe("test-model");
    expect(requestMessages(0).at(-1)).toMatchObject({ role: "user", content: "say hello" });
  });

  it("reads the prompt from stdin with -p -, and talks to Anthropic with the real SDK", async () => {
    const { run } = await setup();
    server.enqueue({ message: assistant("Bonjour."), usage });
    const result = await run(["-p", "-", "--provider", "anthropic", "--base-url", server.url], { ANTHROPIC_API_KEY: "sk-ant-test" }, "greet me in French\n");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Bonjour.\n");
    expect(server.requests[0]!.path).toBe("/v1/messages");
  });

  it("prints every event as a wire-envelope JSON line with --output-format stream-json", async () => {
    const { run } = await setup();
    server.enqueue({ message: assistant("Streamed answer."), usage });
    const result = await run(["-p", "hi", "--output-format", "stream-json"]);
    expect(result.code, result.stderr).toBe(0);
    const events: SoulEvent[] = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("TurnBegin");
    expect(types.at(-1)).toBe("TurnEnd");
    expect(types.indexOf("StepBegin")).toBeLessThan(types.indexOf("TextPart"));
    expect(types.indexOf("TextPart")).toBeLessThan(types.indexOf("StatusUpdate"));
    expect(events.filter((e) => e.type === "TextPart").map((e) => (e.payload as { text: string }).text).join("")).toBe("Streamed answer.");
    expect(events.at(-1)!.payload).toMatchObject({ stop_reason: "no_tool_calls", steps: 1 });
    for (const line of result.stdout.trim().split("\n")) expect(Object.keys(JSON.parse(line))).toEqual(["type", "payload"]);
  });

  it("runs an approval-needing tool with --yolo", async () => {
    const { cwd, run } = await setup();
    server.enqueue({ message: callTool("c1", "WriteFile", { path: "notes/todo.txt", content: "buy milk\n" }), usage }, { message: assistant("Written."), usage });
    const result = await run(["-p", "write my todo", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Written.\n");
    expect(await readFile(path.join(cwd, "notes/todo.txt"), "utf8")).toBe("buy milk\n");
    expect(requestMessages(1).at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1" });
  });

  it("refuses approval-needing tools without --yolo, and the model reads why", async () => {
    const { cwd, run } = await setup();
    server.enqueue({ message: callTool("c1", "Shell", { command: "touch pwned" }), usage }, { message: assistant("I could not run it."), usage });
    const result = await run(["-p", "run something"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readdir(cwd)).not.toContain("pwned");
    const toolResult = requestMessages(1).find((m) => m.role === "tool");
    expect(JSON.stringify(toolResult)).toContain("refused in print mode");
    expect(JSON.stringify(toolResult)).toContain("--yolo");
    // The user is told too, on stderr.
    expect(result.stderr).toBe("kosong: 1 tool call refused without --yolo (print mode cannot ask): Shell: Run: touch pwned\n");
  });

  it("takes piped stdin as context next to -p PROMPT", async () => {
    const { run } = await setup();
    server.enqueue({ message: assistant("It failed at step 2."), usage });
    const result = await run(["-p", "why did it fail?"], undefined, "step 1 ok\nstep 2 FAILED\n");
    expect(result.code, result.stderr).toBe(0);
    expect(requestMessages(0).at(-1)).toMatchObject({ role: "user", content: "why did it fail?\n\n<stdin>\nstep 1 ok\nstep 2 FAILED\n</stdin>" });
  });

  it("streams a refused tool turn as events in order: call, approval request and rejection, result, next step", async () => {
    const { run } = await setup();
    server.enqueue({ message: callTool("c1", "EditFile", { path: "a.txt", old_string: "a", new_string: "b" }), usage }, { message: assistant("Skipped."), usage });
    const result = await run(["-p", "edit it", "--output-format", "stream-json"]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const types = events.map((e) => e.type);
    const at = (type: string, from = 0) => types.indexOf(type as SoulEvent["type"], from);
    expect(at("ToolCall")).toBeGreaterThan(at("StepBegin"));
    // EditFile reads the file first: a missing file is an error result without any approval asked.
    expect(at("ToolResult")).toBeGreaterThan(at("ToolCall"));
    expect(at("StepBegin", at("ToolResult"))).toBeGreaterThan(at("ToolResult"));
    expect(types.at(-1)).toBe("TurnEnd");
    expect(events.at(-1)!.payload).toMatchObject({ stop_reason: "no_tool_calls", steps: 2 });
  });

  it("asks approval in stream-json and records the refusal before the tool's result", async () => {
    const { run } = await setup();
    server.enqueue({ message: callTool("c1", "Shell", { command: "rm -rf build" }), usage }, { message: assistant("Not run."), usage });
    const result = await run(["-p", "clean", "--output-format", "stream-json"]);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => parseEvent(line));
    const types = events.map((e) => e.type);
    const request = types.indexOf("ApprovalRequest");
    const response = types.indexOf("ApprovalResponse");
    const toolResult = types.indexOf("ToolResult");
    expect(request).toBeGreaterThan(types.indexOf("ToolCall"));
    expect(response).toBeGreaterThan(request);
    expect(toolResult).toBeGreaterThan(response);
    expect(events[request]!.payload).toMatchObject({ sender: "Shell", description: "Run: rm -rf build" });
    expect(events[response]!.payload).toMatchObject({ response: "reject" });
    expect(events[toolResult]!.payload).toMatchObject({ tool_call_id: "c1", return_value: { is_error: true } });
  });

  it("refuses paths that escape the working directory through .. and a symlink", async () => {
    const { home, cwd, run } = await setup();
    await writeFile(path.join(home, "secret.txt"), "the secret");
    await symlink(path.join(home, "secret.txt"), path.join(cwd, "link.txt"));
    server.enqueue(
      {
        message: {
          role: "assistant",
          content: [],
          tool_calls: [
            { type: "function", id: "c1", function: { name: "ReadFile", arguments: JSON.stringify({ path: "../secret.txt" }) } },
            { type: "function", id: "c2", function: { name: "ReadFile", arguments: JSON.stringify({ path: "link.txt" }) } },
          ],
        },
        usage,
      },
      { message: assistant("Both refused."), usage },
    );
    const result = await run(["-p", "read the secret", "--yolo"]);
    expect(result.code, result.stderr).toBe(0);
    const results = requestMessages(1).filter((m) => m.role === "tool");
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(JSON.stringify(r)).toContain("outside the working directory");
      expect(JSON.stringify(r)).not.toContain("the secret");
    }
  });

  it("continues and resumes a saved session", async () => {
    const { home, run } = await setup();
    server.enqueue({ message: assistant("First answer."), usage }, { message: assistant("Second answer."), usage }, { message: assistant("Third answer."), usage });
    await succeeds(run(["-p", "first question"]));
    await succeeds(run(["-p", "second question", "--continue"]));
    const texts = (n: number) => requestMessages(n).map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    expect(texts(1)).toEqual(expect.arrayContaining(["first question", "First answer.", "second question"]));
    const [id] = await readdir(path.join(home, ".kosong/sessions"));
    const listed = await run(["sessions"]);
    expect(listed.stdout).toContain(id!);
    expect(listed.stdout).toContain("first question");
    await succeeds(run(["-p", "third question", "--resume", id!.slice(0, 17)]));
    expect(texts(2)).toEqual(expect.arrayContaining(["first question", "second question", "Second answer.", "third question"]));
    const sessionFile = await readFile(path.join(home, ".kosong/sessions", id!, "context.jsonl"), "utf8");
    expect(sessionFile).not.toContain("sk-test");
  });

  it("resumes a kimi-cli context.jsonl with --resume-file and appends to it", async () => {
    const { home, run } = await setup();
    const file = path.join(home, "kimi-context.jsonl");
    await copyFile(path.join(fixturesDir, "kimi-cli-sessions/basic/context.jsonl"), file);
    const expected = JSON.parse(await readFile(path.join(fixturesDir, "kimi-cli-sessions/basic/expected.json"), "utf8")) as {
      restored: { history: { role: string }[]; system_prompt: string };
    };
    const before = await readFile(file, "utf8");
    server.enqueue({ message: assistant("Continuing the kimi-cli session."), usage });
    const result = await run(["-p", "go on", "--resume-file", file]);
    expect(result.code, result.stderr).toBe(0);
    const sent = requestMessages(0);
    expect(sent[0]).toMatchObject({ role: "system", content: expected.restored.system_prompt });
    expect(sent.length).toBe(1 + expected.restored.history.length + 1);
    const after = await readFile(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    expect(after).toContain('"Continuing the kimi-cli session."');
  });

  it("warns about damaged lines of a resumed kimi-cli file and goes on", async () => {
    const { home, run } = await setup();
    const file = path.join(home, "corrupt.jsonl");
    await copyFile(path.join(fixturesDir, "kimi-cli-sessions/corrupt-lines/context.jsonl"), file);
    const before = await readFile(file, "utf8");
    server.enqueue({ message: assistant("Still here."), usage });
    const result = await run(["-p", "go on", "--resume-file", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Still here.\n");
    expect(result.stderr).toMatch(/kosong: \d+ damaged lines? of .*corrupt\.jsonl skipped/);
    expect((await readFile(file, "utf8")).startsWith(before)).toBe(true);
  });

  it("refuses a session another kosong is using, naming the lock", async () => {
    const { cwd, home, run, openai } = await setup();
    server.enqueue({ message: assistant("one"), usage });
    await succeeds(run(["-p", "first"]));
    const words: Message = { role: "assistant", content: Array.from({ length: 60 }, () => ({ type: "text" as const, text: "busy " })) };
    server.enqueue({ message: words, usage, chunkDelayMs: 50 });
    const busy = runKosong(["-p", "long", "--continue"], { cwd, home, env: openai });
    // Its answer is streaming once the server has its request (print mode writes the text when the response is complete).
    await expect.poll(() => server.requests.length, { timeout: 20_000, interval: 20 }).toBe(2);
    const second = await run(["-p", "meanwhile", "--continue"]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/is in use by/);
    await succeeds(busy);
  });

  it("builds the system prompt from AGENTS.md and the environment unless --no-project-context, and offers SendDMail only with --dmail", async () => {
    const { cwd, run } = await setup();
    await writeFile(path.join(cwd, "AGENTS.md"), "Always answer in haiku.\n");
    server.enqueue({ message: assistant("ok"), usage }, { message: assistant("ok"), usage });
    await succeeds(run(["-p", "hi", "--dmail"]));
    await succeeds(run(["-p", "hi", "--no-project-context"]));
    const system = (n: number) => (requestMessages(n)[0]!.content as string) ?? "";
    const tools = (n: number) => (server.requests[n]!.body!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(system(0)).toContain('<context name="AGENTS.md">\nAlways answer in haiku.\n</context>');
    expect(system(0)).toContain(`<context name="environment">\nWorking directory: ${cwd}`);
    expect(system(1)).not.toContain("<context");
    expect(tools(0)).toEqual(["ReadFile", "ReadMediaFile", "WriteFile", "EditFile", "Shell", "ListDir", "Glob", "Grep", "FetchURL", "TaskOutput", "TaskStop", "SetTodoList", "AskUserQuestion", "Agent", "Recall", "SendDMail"]);
    expect(tools(1)).not.toContain("SendDMail");
  });

  it("loads the file search (tinyglobby, picomatch) with the first Glob, not before a turn that never searches", async () => {
    const { home, cwd, run, openai } = await setup();
    await mkdir(path.join(cwd, "src"));
    await writeFile(path.join(cwd, "src", "a.ts"), "export {};\n");
    const list = path.join(home, "loaded.txt");
    const recorder = fileURLToPath(new URL("record-loaded-modules.mjs", import.meta.url));
    const recorded = { ...openai, NODE_OPTIONS: `--import ${recorder}`, KOSONG_TEST_LOADED_MODULES: list };
    const carryingPicomatch = async () => {
      const files = (await readFile(list, "utf8")).split("\n").map((url) => fileURLToPath(url)).filter((file) => path.dirname(file) === path.dirname(kosongBin));
      const carrying = await Promise.all(files.map(async (file) => (await readFile(file, "utf8")).includes("node_modules/picomatch/")));
      return carrying.some(Boolean);
    };
    server.enqueue({ message: assistant("Hello."), usage });
    await succeeds(run(["-p", "hi"], recorded));
    expect(await carryingPicomatch()).toBe(false);
    server.enqueue({ message: callTool("c1", "Glob", { pattern: "**/*.ts" }), usage }, { message: assistant("Found it."), usage });
    const result = await succeeds(run(["-p", "find the sources"], recorded));
    expect(result.stdout).toContain("Found it.");
    expect(requestMessages(2).find((m) => m.role === "tool")?.content).toContain("src/a.ts");
    expect(await carryingPicomatch()).toBe(true);
  });

  it("explains missing credentials and exits 2", async () => {
    const { run } = await setup();
    const result = await run(["-p", "hello"], {});
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("export OPENAI_API_KEY=");
    expect(result.stderr).toContain("Ollama");
    expect(result.stderr).toContain("kosong demo");
    expect(server.requests).toHaveLength(0);
  });

  it("names a wrong key of the config file and exits 2", async () => {
    const { home, run, openai } = await setup();
    await mkdir(path.join(home, ".kosong"), { recursive: true });
    await writeFile(path.join(home, ".kosong/config.toml"), 'model = "m"\ntemprature = 0.2\n');
    const result = await run(["-p", "hello"], openai);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("config.toml");
    expect(result.stderr).toContain("unknown key `temprature`");
  });

  it("reports a provider error on stderr with exit 1, and a bad flag with exit 2", async () => {
    const { run } = await setup();
    server.enqueue({ status: 401, body: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } } });
    const failed = await run(["-p", "hello"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe("kosong: 401 invalid_request_error: Incorrect API key provided (the API key sent came from OPENAI_API_KEY)\n");
    // A refused key names the variable it came from.
    server.enqueue({ status: 403, body: { error: { message: "Forbidden", type: "permission_error" } } });
    const viaKosongKey = await run(["-p", "hello"], { KOSONG_API_KEY: "sk-other", OPENAI_BASE_URL: `${server.url}/v1` });
    expect(viaKosongKey.stderr).toContain("(the API key sent came from KOSONG_API_KEY)");
    const usageError = await run(["-p", "hello", "--provider", "gemini"]);
    expect(usageError.code).toBe(2);
    expect(usageError.stderr).toMatch(/gemini/);
    for (const args of [["--frobnicate"], ["--output-format", "stream-json"], ["-p", "x", "--continue", "--resume", "abc"], ["-p", "x", "--resume-file", "/nonexistent/context.jsonl"]]) {
      const bad = await run(args);
      expect(bad.code, args.join(" ")).toBe(2);
      expect(bad.stderr, args.join(" ")).not.toBe("");
    }
  });

  it("writes only the attempt that succeeds when a cut answer is retried, and nothing when every attempt is cut", async () => {
    const { run } = await setup();
    const answer: Message = { role: "assistant", content: ["The ", "release ", "is ", "on ", "Friday."].map((text) => ({ type: "text" as const, text })) };
    server.enqueue({ message: answer, usage, cutAfter: 3 }, { message: answer, usage, cutAfter: 4 }, { message: answer, usage });
    const result = await run(["-p", "when is the release?"]);
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(result.stdout).toBe("The release is on Friday.\n");
    expect(result.stderr).toMatch(/^(kosong: the answer was cut off \(.+\); retrying\n){2}$/);

    server.reset();
    server.enqueue(...Array.from({ length: 4 }, () => ({ message: answer, usage, cutAfter: 3 })));
    const failed = await run(["-p", "when is the release?", "--first-byte-timeout", "5"]);
    expect(failed.code).toBe(1);
    expect(server.requests).toHaveLength(4);
    expect(failed.stdout).toBe("");
  }, 60_000);

  it("stops the whole run after --max-time (KOSONG_MAX_TIME), exit 1, and documents the default", async () => {
    const { run, openai } = await setup();
    // The server holds the response (no status line) far longer than the limit.
    server.enqueue({ message: assistant("Too late."), usage, delayMs: 60_000 });
    const result = await run(["-p", "anyone there?"], { ...openai, KOSONG_MAX_TIME: "1" });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe("kosong: stopped after 1 s (--max-time; 0: no limit)\n");
    const help = await run(["--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("--max-time <seconds> print mode: stop the whole run after this long, exit 1 (default 900, 0: no limit)");
  }, 30_000);

  it("exits 130 when interrupted mid-stream, leaving a session that resumes", async () => {
    const { home, cwd } = await setup();
    const slow: Message = { role: "assistant", content: Array.from({ length: 200 }, () => ({ type: "text" as const, text: "slow " })) };
    // Held after its first words until kosong leaves it: the SIGINT surely comes mid-stream.
    server.enqueue({ message: slow, usage, holdAfter: 2 }, { message: assistant("Resumed fine."), usage });
    let running: ChildProcess | undefined;
    let signalled = false;
    const result = await runKosong(["-p", "tell me a long story"], {
      cwd,
      home,
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` },
      onSpawn: (c) => {
        running = c;
        // Interrupted once the request is in (print mode writes the answer when the response is complete; this one never completes).
        const poll = setInterval(() => {
          if (server.requests.length === 0 || signalled) return;
          signalled = true;
          clearInterval(poll);
          running?.kill("SIGINT");
        }, 20);
      },
    });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toContain("aborted");
    const resumed = await runKosong(["-p", "again", "--continue"], { cwd, home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("Resumed fine.\n");
  });
});

describe("print mode shows control characters from the model and the server", () => {
  it("in the answer on stdout and in the error on stderr", async () => {
    const home = await tempDir();
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
    server.enqueue({ message: assistant("line one\r\nline two\u001b[2K\ttab\u202e"), usage });
    const answer = await runKosong(["-p", "hi"], { cwd: home, home, env });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout).toBe("line one\nline two␛[2K\ttab<U+202E>\n");

    server.enqueue({ status: 400, body: { error: { message: "bad \u001b]0;owned\u0007 request", type: "invalid_request_error" } } });
    const failed = await runKosong(["-p", "hi"], { cwd: home, home, env });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("bad ␛]0;owned␇ request");
    expect(failed.stderr).not.toContain("\u001b");
  });
});
