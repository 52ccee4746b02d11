/**
 * MCP in the built `kosong`: servers from `--mcp-config-file` and from the
 * config file's `mcpServers` (the reference servers from npm, as real child
 * processes), their tools called by the model through the fake provider
 * server, approval applying to them as to any tool that acts, a server that
 * does not start reported while the run goes on, a bad config refused, and
 * a run without MCP servers never loading the MCP SDK.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { Message } from "@kosong/core";
import { parseEvent, type SoulEvent } from "@kosong/soul";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const require = createRequire(import.meta.url);
const serverScript = (pkg: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });
const callTool = (id: string, name: string, args: object): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }],
});

async function setup() {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1` };
  const run = (args: string[], extra: Record<string, string> = {}) => runKosong(args, { cwd, home, env: { ...env, ...extra } });
  return { home, cwd, run };
}

function events(stdout: string): SoulEvent[] {
  return stdout.trim().split("\n").map((line) => parseEvent(line));
}

function toolResults(stdout: string) {
  return events(stdout).flatMap((event) => (event.type === "ToolResult" ? [event.payload] : []));
}

describe("kosong with MCP servers", { timeout: 60_000 }, () => {
  it("--mcp-config-file: the model calls a server's tool; a server that does not start is reported and the run goes on", async () => {
    const { home, run } = await setup();
    const file = path.join(home, "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [serverScript("@modelcontextprotocol/server-everything"), "stdio"] }, broken: { command: "kosong-no-such-mcp-server" } } }));
    fake.server.enqueue({ message: callTool("c1", "mcp__everything__echo", { message: "over MCP" }) }, { message: assistant("Echoed.") });
    const result = await run(["-p", "echo it", "--yolo", "--output-format", "stream-json", "--mcp-config-file", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("kosong: MCP server `broken` could not be started: spawn kosong-no-such-mcp-server ENOENT (the session runs without it)\n");
    expect(toolResults(result.stdout).map((r) => [r.tool_call_id, r.return_value.output])).toEqual([["c1", "Echo: over MCP"]]);
    const offered = (fake.server.requests[0]!.body!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["ReadFile", "Shell", "mcp__everything__echo", "mcp__everything__get-tiny-image"]));
  });

  it("a server that does not start is reported without the passwords of its URL or of URLs in its stderr", async () => {
    const { home, run } = await setup();
    const file = path.join(home, "mcp.json");
    const leaky = { command: process.execPath, args: ["-e", "console.error('cannot reach postgres://app:db_pw_4242@db.example/app'); process.exit(1)"] };
    await writeFile(file, JSON.stringify({ mcpServers: { remote: { url: "http://user:url_pw_4242@127.0.0.1:9/mcp" }, leaky } }));
    fake.server.enqueue({ message: assistant("Fine.") });
    const result = await run(["-p", "hi", "--mcp-config-file", file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("_pw_4242");
    expect(result.stderr).toContain("MCP server `remote` could not be started");
    expect(result.stderr).toContain("http://user:***@127.0.0.1:9/mcp");
    expect(result.stderr).toContain("postgres://app:***@db.example/app");
  });

  it("the config file's mcpServers: a stdio server starts in the working directory; without --yolo print mode refuses its calls, as any tool needing approval", async () => {
    const { home, cwd, run } = await setup();
    await writeFile(path.join(cwd, "notes.txt"), "project notes");
    const mcpServers = { files: { command: process.execPath, args: [serverScript("@modelcontextprotocol/server-filesystem"), "."] } };
    await writeFile(path.join(home, ".kosong", "config.json"), JSON.stringify({ mcpServers }));
    const read = callTool("c1", "mcp__files__read_text_file", { path: path.join(cwd, "notes.txt") });
    fake.server.enqueue({ message: read }, { message: assistant("Read it.") });
    const approved = await run(["-p", "read the notes", "--yolo", "--output-format", "stream-json"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(toolResults(approved.stdout).map((r) => r.return_value.output)).toEqual(["project notes"]);

    fake.server.reset();
    fake.server.enqueue({ message: read }, { message: assistant("I could not read it.") });
    const refused = await run(["-p", "read the notes", "--output-format", "stream-json"]);
    expect(refused.code, refused.stderr).toBe(0);
    expect(toolResults(refused.stdout).map((r) => [r.return_value.is_error, r.return_value.output])).toEqual([[true, ""]]);
    const requests = events(refused.stdout).flatMap((event) => (event.type === "ApprovalRequest" ? [event.payload] : []));
    expect(requests).toMatchObject([{ sender: "mcp__files__read_text_file", action: "mcp__files__read_text_file" }]);
  });

  it("refuses a config that is not valid, naming the file and the server (exit code 2)", async () => {
    const { home, run } = await setup();
    const file = path.join(home, "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { remote: { type: "sse", url: "http://127.0.0.1:1/sse" } } }));
    const result = await run(["-p", "hi", "--mcp-config-file", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file} is not a valid mcpServers config:\n  - mcpServers.remote: the "sse" transport is not supported`);
    expect(fake.server.requests).toEqual([]);
  });

  it("a run without MCP servers never loads the MCP SDK", async () => {
    const { home, run } = await setup();
    const hook = path.join(home, "trace-mcp.mjs");
    await writeFile(
      hook,
      `import { registerHooks } from "node:module";
registerHooks({ resolve(specifier, context, next) {
  if (specifier === "@kosong/mcp" || specifier.startsWith("@modelcontextprotocol/")) process.stderr.write("loaded " + specifier + "\\n");
  return next(specifier, context);
} });\n`,
    );
    fake.server.enqueue({ message: assistant("No MCP.") });
    const without = await run(["-p", "hi"], { NODE_OPTIONS: `--import ${hook}` });
    expect(without.code, without.stderr).toBe(0);
    expect(without.stderr).toBe("");
    // The hook does see the SDK when servers are configured.
    const file = path.join(home, "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { broken: { command: "kosong-no-such-mcp-server" } } }));
    fake.server.enqueue({ message: assistant("Still no MCP.") });
    const withServers = await run(["-p", "hi", "--mcp-config-file", file], { NODE_OPTIONS: `--import ${hook}` });
    expect(withServers.stderr).toContain("loaded @kosong/mcp\n");
  });
});
