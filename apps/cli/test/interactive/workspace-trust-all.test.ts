/**
 * One trust prompt for everything a workspace brings, on an emulated terminal (in process), against the fake provider server: a cloned
 * workspace with a hook (`.claude/settings.json`), an MCP server
 * (`.mcp.json`, the reference "everything" server run by node) and a
 * project allow rule. The prompt at start-up shows the hook's command, the
 * server's command and the rule. After "no" none of them acts: the hook does
 * not run, the server's tools are not offered to the model, and the rule
 * lets nothing run unasked. After "yes" all three act, and the next start
 * does not ask again. A hostile workspace with thousands of hooks and rules
 * gets a prompt that lists the first of each and counts the rest, and the
 * yes covers the rules not shown.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { cleanEnv } from "../e2e/kosong-binary.js";
import { callTool, say, usage } from "../e2e/fake-model.js";
import { interactiveSuite } from "./interactive-suite.js";
import { KosongTerminal } from "./kosong-terminal.js";

const tempDir = useTempDirs();
const { server, terminals } = await interactiveSuite();
const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

const ready = /Ctrl-D exits[\s\S]*test-model ·[\s\S]*›\s*$/m;
const question = /Trust this workspace and run its hooks, start its MCP servers and use its permission rules\? \(remembered until they change\) \[y\/N\] $/m;

/** The tool names the model was offered in request `n`. */
const offered = (n: number) => (server.requests[n]!.body!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

describe("one trust prompt for a workspace's hooks, MCP servers and permission rules (in process)", { timeout: 120_000 }, () => {
  it("shows all three; after no none acts, after yes all act and the answer is remembered", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    const log = path.join(home, "hook.log");
    const hook = `echo ran >> '${log}'`;
    await writeFile(
      path.join(cwd, ".claude", "settings.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: hook }] }] }, permissions: { allow: ["Bash(echo project-rule:*)"] } }),
    );
    await writeFile(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { env: { command: process.execPath, args: [everything, "stdio"] } } }));
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const start = () => {
      const terminal = KosongTerminal.start(["--model", "test-model", "--sandbox", "off"], { cwd, env, width: 220 });
      terminals.push(terminal);
      return terminal;
    };

    // No: the prompt shows everything; then the hook does not run, the server is not started, the rule does not allow.
    let terminal = start();
    let screen = await terminal.waitFor(question);
    expect(screen).toContain("This workspace defines 1 hook command that kosong would run on your machine:");
    expect(screen).toContain(hook);
    expect(screen).toContain("Its .mcp.json names 1 MCP server that kosong would start or connect to:");
    expect(screen).toContain(`env: ${process.execPath} ${everything} stdio`);
    expect(screen).toContain("It sets 1 permission rule");
    expect(screen).toMatch(/allow Bash\(echo project-rule:\*\) from \.claude[/]settings\.json/);
    terminal.line("n");
    screen = await terminal.waitFor(ready);
    expect(screen).toContain("Workspace not trusted: none of it is used.");
    server.enqueue({ message: callTool("s1", "Shell", { command: "echo project-rule untrusted" }), usage });
    terminal.line("first");
    await terminal.waitFor(/approve\? $/m, { from: "› first" });
    terminal.line("n");
    await terminal.waitFor(/›\s*$/, { from: "approve? n" });
    expect(offered(0).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(existsSync(log)).toBe(false);
    terminal.keys("C-d");

    // Yes: the hook runs, the server's tools are offered, the rule runs the matching command unasked.
    server.reset();
    terminal = start();
    await terminal.waitFor(question);
    terminal.line("y");
    await terminal.waitFor(ready);
    server.enqueue({ message: callTool("s2", "Shell", { command: "echo project-rule trusted" }), usage }, { message: say("Ran it."), usage });
    terminal.line("second");
    screen = await terminal.waitFor(/Ran it\.[\s\S]*›\s*$/, { from: "› second" });
    expect(screen).not.toContain("approve?");
    expect(offered(0)).toContain("mcp__env__get-env");
    const toolMessage = (server.requests[1]!.body!.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("project-rule trusted");
    expect((await readFile(log, "utf8")).trim().split("\n")).toEqual(["ran"]);
    terminal.keys("C-d");

    // Remembered: no question at the next start.
    terminal = start();
    screen = await terminal.waitFor(ready);
    expect(screen).not.toContain("Trust this workspace");
  });

  it("lists the first 20 of thousands of hooks and rules and counts the rest; yes trusts the rules not shown too", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "project");
    await mkdir(path.join(cwd, ".claude"), { recursive: true });
    const hooks = Array.from({ length: 3000 }, (_, i) => ({ hooks: [{ type: "command", command: `echo hook-${i}` }] }));
    const allow = [...Array.from({ length: 5000 }, (_, i) => `Bash(echo rule-${i}:*)`), "Bash(echo last-rule:*)"];
    await writeFile(path.join(cwd, ".claude", "settings.json"), JSON.stringify({ hooks: { PreCompact: hooks }, permissions: { allow } }));
    const env = cleanEnv(home, { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` });
    const terminal = KosongTerminal.start(["--model", "test-model", "--sandbox", "off"], { cwd, env, width: 160 });
    terminals.push(terminal);

    let screen = await terminal.waitFor(/Trust this workspace and run its hooks and use its permission rules\? \(remembered until they change\) \[y\/N\] $/m);
    expect(screen).toContain("This workspace defines 3000 hook commands that kosong would run on your machine:");
    expect(screen.match(/^ {4}echo hook-\d+$/gm)).toHaveLength(20);
    expect(screen).toContain("… and 2,980 more hook commands, not shown (trusting the workspace trusts them too)");
    expect(screen).toContain("It sets 5001 permission rules");
    expect(screen.match(/^ {2}allow Bash\(echo (rule-\d+|last-rule):\*\)/gm)).toHaveLength(20);
    expect(screen).toContain("… and 4,981 more permission rules, not shown (trusting the workspace trusts them too)");
    expect(screen).not.toContain("last-rule");
    terminal.line("y");
    await terminal.waitFor(ready);

    // The last rule, never shown, lets its command run unasked.
    server.enqueue({ message: callTool("s1", "Shell", { command: "echo last-rule ran" }), usage }, { message: say("Ran it."), usage });
    terminal.line("go");
    screen = await terminal.waitFor(/Ran it\.[\s\S]*›\s*$/, { from: "› go" });
    expect(screen).not.toContain("approve?");
    const toolMessage = (server.requests.at(-1)!.body!.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage?.content)).toContain("last-rule ran");
    terminal.keys("C-d");
  });
});
