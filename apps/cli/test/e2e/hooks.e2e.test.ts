/**
 * Hooks through the built binary (print mode against the fake provider
 * server), with real hook commands: a node script that logs the event JSON
 * it reads on stdin and answers as the test asks (exit 2 with a reason,
 * JSON, a formatter's edit, a hang, garbage). kimi-cli's `[[hooks]]` in
 * config.toml and Claude Code's `.claude/settings.json` both drive it.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ensureBubblewrap } from "../ensure-bubblewrap.js";
import { useTempDirs } from "../temp-dir.js";
import { type KosongRun, runKosong } from "./kosong-binary.js";
import { callTool, say, usage } from "./fake-model.js";
import { kosongSuite } from "./kosong-suite.js";

const tempDir = useTempDirs();
const bwrap = ensureBubblewrap();
const { server } = await kosongSuite();

/** The hook program: `node hook.mjs MODE LOG` logs `{event, input}` to LOG, then acts as MODE says. */
const hookProgram = `
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
const [mode, log] = process.argv.slice(2);
const input = JSON.parse(readFileSync(0, "utf8"));
appendFileSync(log, JSON.stringify(input) + "\\n");
switch (mode) {
  case "log": break;
  case "block": process.stderr.write("rm is not allowed here, use trash instead"); process.exit(2);
  case "format": {
    const file = input.tool_input.file_path;
    writeFileSync(file, readFileSync(file, "utf8").toUpperCase());
    process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: "formatted " + input.tool_input.path } }));
    break;
  }
  case "stop-once": {
    const flag = log + ".stopped";
    if (!existsSync(flag)) { writeFileSync(flag, ""); process.stderr.write("run the tests before you stop"); process.exit(2); }
    break;
  }
  case "hang": setInterval(() => {}, 1000); break;
  case "garbage": process.stdout.write("{not json \\u001b[31m\\u0007" + "x".repeat(200000)); break;
  case "context": process.stdout.write("The branch is feature-x."); break;
  case "session-context": process.stdout.write("Session notes: use pnpm."); break;
}
`;

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(path.join(home, ".kosong"), { recursive: true });
  await mkdir(cwd);
  const hook = path.join(home, "hook.mjs");
  await writeFile(hook, hookProgram);
  const log = path.join(home, "hooks.log");
  const command = (mode: string) => `'${process.execPath}' '${hook}' ${mode} '${log}'`;
  const openai = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` };
  const run = (args: string[], sandbox = "off"): Promise<KosongRun> => runKosong(["--sandbox", sandbox, "--model", "test-model", ...args], { cwd, home, env: openai });
  /** Writes `[[hooks]]` tables to config.toml. */
  const configHooks = (tables: Array<{ event: string; mode: string; matcher?: string; timeout?: number }>) =>
    writeFile(
      path.join(home, ".kosong", "config.toml"),
      tables.map((t) => `[[hooks]]\nevent = "${t.event}"\ncommand = ${JSON.stringify(command(t.mode))}\n${t.matcher ? `matcher = ${JSON.stringify(t.matcher)}\n` : ""}${t.timeout ? `timeout = ${t.timeout}\n` : ""}`).join("\n"),
    );
  /** Writes a Claude Code `.claude/settings.json` into the workspace. */
  const claudeHooks = async (hooks: Record<string, Array<{ matcher?: string; mode: string }>>) => {
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    const json = Object.fromEntries(Object.entries(hooks).map(([event, entries]) => [event, entries.map((e) => ({ ...(e.matcher && { matcher: e.matcher }), hooks: [{ type: "command", command: command(e.mode) }] }))]));
    await writeFile(path.join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: [] }, hooks: json }));
  };
  const logged = async (): Promise<Array<Record<string, unknown>>> => (existsSync(log) ? (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>) : []);
  return { home, cwd, run, configHooks, claudeHooks, logged, command };
}

/** The text of the tool message answering `id` in request `n`. */
function toolMessage(n: number, id: string): string {
  const messages = server.requests[n]!.body!.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  return JSON.stringify(messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content);
}

describe("hooks through the built binary", { timeout: 60_000 }, () => {
  it("a PreToolUse hook (exit 2) blocks a Shell command; the model reads its reason; the hook got the event as JSON", async () => {
    const { cwd, run, configHooks, logged } = await setup();
    await configHooks([{ event: "PreToolUse", matcher: "Shell", mode: "block" }]);
    server.enqueue({ message: callTool("c1", "Shell", { command: "touch made-it && rm -rf stuff" }), usage }, { message: say("understood"), usage });
    const result = await run(["--yolo", "-p", "clean up"]);
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(cwd, "made-it"))).toBe(false);
    expect(toolMessage(1, "c1")).toContain("rm is not allowed here, use trash instead");
    const [input] = await logged();
    expect(input).toMatchObject({ hook_event_name: "PreToolUse", tool_name: "Shell", tool_input: { command: "touch made-it && rm -rf stuff" }, tool_use_id: "c1", cwd });
    expect(typeof input!.session_id).toBe("string");
  });

  it("a Claude Code PostToolUse formatter (matcher Write) rewrites the file and tells the model; the workspace is trusted with --trust-workspace", async () => {
    const { cwd, run, claudeHooks } = await setup();
    await claudeHooks({ PostToolUse: [{ matcher: "Write|Edit", mode: "format" }] });
    server.enqueue({ message: callTool("w1", "WriteFile", { path: "a.txt", content: "hello\n" }), usage }, { message: say("written"), usage });
    const result = await run(["--yolo", "--trust-workspace", "-p", "write a.txt"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(cwd, "a.txt"), "utf8")).toBe("HELLO\n");
    expect(toolMessage(1, "w1")).toContain("Hook context: formatted a.txt");
  });

  it("a workspace hook does not run before the workspace is trusted, and the user is told", async () => {
    const { cwd, run, claudeHooks, logged } = await setup();
    await claudeHooks({ UserPromptSubmit: [{ mode: "log" }], PreToolUse: [{ mode: "block" }] });
    server.enqueue({ message: callTool("c1", "Shell", { command: "touch ran" }), usage }, { message: say("done"), usage });
    const result = await run(["--yolo", "-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    expect(await logged()).toEqual([]);
    expect(existsSync(path.join(cwd, "ran"))).toBe(true);
    expect(result.stderr).toContain("2 hooks of this workspace (.claude/settings.json) not run: the workspace is not trusted");
  });

  it("SessionStart and UserPromptSubmit (both adding context), PostToolUseFailure, Stop (keeps the turn going), Notification and SessionEnd fire in order", async () => {
    const { run, configHooks, logged } = await setup();
    await configHooks([
      { event: "SessionStart", mode: "session-context" },
      { event: "UserPromptSubmit", mode: "context" },
      { event: "PostToolUse", mode: "log" },
      { event: "PostToolUseFailure", mode: "log" },
      { event: "Stop", mode: "stop-once" },
      { event: "Notification", mode: "log" },
      { event: "SessionEnd", mode: "log" },
    ]);
    server.enqueue({ message: callTool("c1", "Shell", { command: "exit 3" }), usage }, { message: say("it failed"), usage }, { message: say("tests pass"), usage });
    const result = await run(["--yolo", "-p", "try it"]);
    expect(result.code, result.stderr).toBe(0);
    const events = await logged();
    expect(events.map((e) => e.hook_event_name)).toEqual(["SessionStart", "UserPromptSubmit", "PostToolUseFailure", "Stop", "Stop", "Notification", "SessionEnd"]);
    expect(events[0]).toMatchObject({ source: "startup" });
    expect(events[1]).toMatchObject({ prompt: "try it" });
    expect(events[2]).toMatchObject({ tool_name: "Shell", error: expect.stringContaining("code 3") });
    expect(events[3]).toMatchObject({ stop_hook_active: false });
    expect(events[4]).toMatchObject({ stop_hook_active: true });
    expect(events[5]).toMatchObject({ notification_type: "turn_done" });
    expect(events[6]).toMatchObject({ reason: "exit" });
    const first = JSON.stringify(server.requests[0]!.body!.messages);
    expect(first).toContain("The branch is feature-x.");
    expect(first).toContain("Session notes: use pnpm.");
    const last = JSON.stringify(server.requests[2]!.body!.messages);
    expect(last).toContain("Stop hook: run the tests before you stop");
    expect(result.stdout).toContain("tests pass");
  });

  it("a UserPromptSubmit hook (exit 2) blocks the prompt: the model is not called and the user reads why", async () => {
    const { run, configHooks } = await setup();
    await configHooks([{ event: "UserPromptSubmit", mode: "block" }]);
    const result = await run(["-p", "rm everything"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("kosong: A UserPromptSubmit hook blocked the prompt: rm is not allowed here, use trash instead");
    expect(server.requests).toHaveLength(0);
  });

  it("a Notification hook hears that approval is needed", async () => {
    const { run, configHooks, logged } = await setup();
    await configHooks([{ event: "Notification", matcher: "permission_prompt", mode: "log" }]);
    server.enqueue({ message: callTool("c1", "Shell", { command: "ls" }), usage }, { message: say("ok"), usage });
    const result = await run(["-p", "list"]);
    expect(result.code, result.stderr).toBe(0);
    const [event] = await logged();
    expect(event).toMatchObject({ hook_event_name: "Notification", notification_type: "permission_prompt", message: expect.stringContaining("ls") });
  });

  it("PreCompact and PostCompact get the trigger, tokens, strategy, dropped ranges and where the old history is kept", async () => {
    const { run, configHooks, logged } = await setup();
    await configHooks([
      { event: "PreCompact", mode: "log" },
      { event: "PostCompact", matcher: "auto", mode: "log" },
    ]);
    const big = { input_other: 1900, output: 5, input_cache_read: 0, input_cache_creation: 0 };
    server.enqueue({ message: callTool("c1", "Shell", { command: "echo hi" }), usage: big }, { message: say("done"), usage });
    const result = await run(["--yolo", "--compaction", "preserve-recent", "--max-context-size", "2000", "-p", `read this: ${"words and more words ".repeat(150)}`]);
    expect(result.code, result.stderr).toBe(0);
    const [pre, post] = await logged();
    expect(pre).toMatchObject({ hook_event_name: "PreCompact", trigger: "auto", strategy: "preserve-recent", message_count: 3 });
    expect(pre!.token_count).toBeGreaterThanOrEqual(1900);
    expect(post).toMatchObject({ hook_event_name: "PostCompact", trigger: "auto", strategy: "preserve-recent", tokens_before: pre!.token_count });
    expect(post!.tokens_after).toBeLessThan(post!.tokens_before as number);
    expect(post!.dropped_ranges).toContainEqual({ from: 0, to: 1 });
    const rotation = post!.rotation as { location: string };
    expect(existsSync(rotation.location)).toBe(true);
    expect(await readFile(rotation.location, "utf8")).toContain("words and more words");
  });

  it("a hook that hangs is stopped at its timeout and the turn goes on, with a notice", async () => {
    const { run, configHooks } = await setup();
    await configHooks([{ event: "UserPromptSubmit", mode: "hang", timeout: 1 }]);
    server.enqueue({ message: say("still here"), usage });
    const result = await run(["-p", "hello"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("still here");
    expect(result.stderr).toMatch(/UserPromptSubmit hook .* timed out after 1 s and was stopped; going on without it/);
  });

  it("a hook that prints garbage (bad JSON, control characters, 200 KB) is ignored with a notice", async () => {
    const { run, configHooks } = await setup();
    await configHooks([{ event: "PreToolUse", mode: "garbage" }]);
    server.enqueue({ message: callTool("c1", "Shell", { command: "echo ran" }), usage }, { message: say("ok"), usage });
    const result = await run(["--yolo", "-p", "go"]);
    expect(result.code, result.stderr).toBe(0);
    expect(toolMessage(1, "c1")).toContain("ran");
    expect(result.stderr).toContain("printed more than 64 KiB; the rest was dropped");
    expect(result.stderr).toContain("printed output that is not valid JSON; ignored");
    expect(result.stderr).not.toContain("\u001b");
  });

  it.skipIf(!bwrap)("hook commands run in the Shell sandbox when it is on, with the Shell's environment (no API key)", async () => {
    const { home, cwd, run } = await setup();
    const outside = path.join(home, "outside-marker");
    await writeFile(
      path.join(home, ".kosong", "config.toml"),
      `[[hooks]]\nevent = "UserPromptSubmit"\ncommand = ${JSON.stringify(`env > '${cwd}/env.txt'; touch '${outside}' 2>/dev/null; true`)}\n`,
    );
    server.enqueue({ message: say("ok"), usage });
    const result = await run(["-p", "hello"], "on");
    expect(result.code, result.stderr).toBe(0);
    const env = await readFile(path.join(cwd, "env.txt"), "utf8");
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${cwd}`);
    expect(env).not.toContain("sk-test");
    expect(existsSync(outside)).toBe(false);
  });
});
