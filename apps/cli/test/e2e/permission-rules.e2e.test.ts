/**
 * Permission rules through the built `kosong` in print mode (which refuses
 * every call that would ask): the config file's allow rules let matching
 * calls run unasked, a deny rule wins over an allow rule and is named to the
 * model, an allow prefix never covers options, and Claude Code's
 * `.claude/settings.json` rules (`Bash(...)`) count only in a trusted
 * workspace.
 */
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Message } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const call = (id: string, name: string, args: object) => ({ type: "function" as const, id, function: { name, arguments: JSON.stringify(args) } });
const calls = (...toolCalls: ReturnType<typeof call>[]): Message => ({ role: "assistant", content: [], tool_calls: toolCalls });
const done: Message = { role: "assistant", content: [{ type: "text", text: "done" }] };

async function setup(config: object | null) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(path.join(cwd, "src"), { recursive: true });
  await mkdir(path.join(home, ".kosong"));
  if (config !== null) await writeFile(path.join(home, ".kosong", "config.json"), JSON.stringify(config));
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  const run = (extra: Record<string, string> = {}) => runKosong(["-p", "go", "--sandbox", "off", "--output-format", "stream-json"], { cwd, home, env: { ...env, ...extra } });
  return { cwd, run };
}

/** The tool results of the run by call id, a child's (nested in `SubagentEvent`s) included. */
function results(stdout: string): Record<string, { error: boolean; text: string }> {
  const out: Record<string, { error: boolean; text: string }> = {};
  for (const line of stdout.trim().split("\n")) {
    const parsed = parseEvent(line);
    const event = parsed.type === "SubagentEvent" ? parsed.payload.event : parsed;
    if (event.type === "ToolResult") out[event.payload.tool_call_id] = { error: event.payload.return_value.is_error, text: JSON.stringify(event.payload.return_value) };
  }
  return out;
}

describe("permission rules, the built binary", { timeout: 60_000 }, () => {
  it("the config file's allow rules run matching calls unasked; deny wins; a prefix never covers options", async () => {
    const { cwd, run } = await setup({ permissions: { allow: ["Shell(echo hi:*)", "Shell(ls:*)", "WriteFile(src/**)"], deny: ["Shell(echo hi secret:*)"] } });
    fake.server.enqueue(
      {
        message: calls(
          call("s1", "Shell", { command: "echo hi there" }),
          call("s2", "Shell", { command: "echo hi secret" }),
          call("s3", "Shell", { command: "ls -la" }),
          call("w1", "WriteFile", { path: "src/a.txt", content: "in src\n" }),
          call("w2", "WriteFile", { path: "b.txt", content: "outside\n" }),
        ),
      },
      { message: done },
    );
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    const r = results(result.stdout);
    expect(r.s1).toMatchObject({ error: false });
    expect(r.s1!.text).toContain("hi there");
    expect(r.s2!.error).toBe(true);
    expect(r.s2!.text).toContain("Denied by the permission rule `deny: Shell(echo hi secret:*)`");
    expect(r.s3!.error).toBe(true);
    expect(r.w1).toMatchObject({ error: false });
    expect(await readFile(path.join(cwd, "src", "a.txt"), "utf8")).toBe("in src\n");
    expect(r.w2!.error).toBe(true);
    await expect(access(path.join(cwd, "b.txt"))).rejects.toThrow();
  });

  it("a child agent's calls meet the same rules: allow spares it the prompt, deny refuses its Shell call, others still ask", async () => {
    const { cwd, run } = await setup({ permissions: { allow: ["Shell(echo hi:*)"], deny: ["Shell(echo hi secret:*)"] } });
    fake.server.enqueue(
      { message: calls(call("a1", "Agent", { description: "run commands", prompt: "run them", subagent_type: "coder" })) },
      { message: calls(call("s1", "Shell", { command: "echo hi there" }), call("s2", "Shell", { command: "echo hi secret" }), call("w1", "WriteFile", { path: "b.txt", content: "x\n" })) },
      { message: done },
      { message: done },
    );
    const result = await run();
    expect(result.code, result.stderr).toBe(0);
    const r = results(result.stdout);
    expect(r.s1).toMatchObject({ error: false });
    expect(r.s1!.text).toContain("hi there");
    expect(r.s2!.error).toBe(true);
    expect(r.s2!.text).toContain("Denied by the permission rule `deny: Shell(echo hi secret:*)`");
    // No rule: it asks, and print mode refuses (said on stderr, named by the child).
    expect(r.w1!.error).toBe(true);
    expect(result.stderr).toMatch(/1 tool call refused without --yolo .*coder\/WriteFile/);
    await expect(access(path.join(cwd, "b.txt"))).rejects.toThrow();
  });

  it("Claude Code's .claude/settings.json rules count only once the workspace is trusted", async () => {
    const { cwd, run } = await setup(null);
    await mkdir(path.join(cwd, ".claude"));
    await writeFile(path.join(cwd, ".claude", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash(echo project:*)"] } }));
    const turn = () => fake.server.enqueue({ message: calls(call("s1", "Shell", { command: "echo project rule" })) }, { message: done });

    turn();
    const untrusted = await run();
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toContain("permission rules are not used until you trust this workspace");
    expect(results(untrusted.stdout).s1!.error).toBe(true);

    fake.server.reset();
    turn();
    const trusted = await run({ KOSONG_TRUST_WORKSPACE: "1" });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(results(trusted.stdout).s1).toMatchObject({ error: false });
    expect(results(trusted.stdout).s1!.text).toContain("project rule");
  });
});
