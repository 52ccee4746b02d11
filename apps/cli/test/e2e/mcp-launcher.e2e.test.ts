/**
 * MCP servers started by a package launcher, as the README's example does
 * (`npx -y <package>`), through the built `kosong`: `npx` reaches the
 * registry it is configured with (a stand-in on 127.0.0.1, named by
 * `npm_config_registry` in the user's environment), the server gets its
 * config entry's `env` with `${VAR:-default}` expanded and none of the
 * user's credentials, and Claude Code's `.mcp.json` is read only from a
 * trusted workspace.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Message } from "@kosong/core";
import { parseEvent } from "@kosong/soul";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";
import { type LocalNpmRegistry, startLocalNpmRegistry } from "./local-npm-registry.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
const require = createRequire(import.meta.url);
const everything = pathToFileURL(path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js")).href;
const packageName = "kosong-test-echo-server";

/** The package's command: refuses to start without the entry's env or with a credential of the user, else runs the reference "everything" server. */
const bin = `const problems = [];
if (process.env.GREETING !== "hello from env") problems.push("GREETING is " + process.env.GREETING);
for (const name of ["OPENAI_API_KEY", "SECRET_TOKEN", "npm_config__authToken"]) if (process.env[name] !== undefined) problems.push(name + " leaked");
if (problems.length > 0) { console.error(problems.join("; ")); process.exit(1); }
process.argv.splice(2, 0, "stdio");
await import(${JSON.stringify(everything)});
`;

const callTool = (id: string, name: string, args: object): Message => ({
  role: "assistant",
  content: [],
  tool_calls: [{ type: "function", id, function: { name, arguments: JSON.stringify(args) } }],
});
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

let registry: LocalNpmRegistry | null = null;
afterEach(async () => {
  await registry?.close();
  registry = null;
});

async function setup(projectFile = true) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await mkdir(path.join(home, ".kosong"));
  registry = await startLocalNpmRegistry(path.join(home, "registry"), [{ name: packageName, bin }]);
  const mcpServers = { echo: { command: "npx", args: ["--yes", packageName], env: { GREETING: "${WHO:-hello} from env" } } };
  const config = JSON.stringify({ mcpServers });
  if (projectFile) await writeFile(path.join(cwd, ".mcp.json"), config);
  await writeFile(path.join(home, "mcp.json"), config);
  const env = {
    OPENAI_API_KEY: "sk-test-launcher-0001",
    OPENAI_BASE_URL: `${fake.server.url}/v1`,
    SECRET_TOKEN: "tok-launcher-0002",
    npm_config_registry: registry.url,
    npm_config_cache: path.join(home, "npm-cache"),
    npm_config__authToken: "npm-auth-launcher-0003",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
  const run = (args: string[], extra: Record<string, string> = {}) => runKosong(args, { cwd, home, env: { ...env, ...extra } });
  return { home, run };
}

const toolOutputs = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => parseEvent(line))
    .flatMap((event) => (event.type === "ToolResult" ? [event.payload.return_value.output] : []));

describe("MCP servers started with npx", { timeout: 90_000 }, () => {
  it("a server runs through npx from the user's configured registry, with its entry's env expanded and none of the user's credentials", async () => {
    const { home, run } = await setup(false);
    fake.server.enqueue({ message: callTool("c1", "mcp__echo__echo", { message: "via npx" }) }, { message: assistant("Echoed.") });
    const result = await run(["-p", "echo it", "--yolo", "--output-format", "stream-json", "--mcp-config-file", path.join(home, "mcp.json")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(toolOutputs(result.stdout)).toEqual(["Echo: via npx"]);
    expect(registry?.tarballsServed()).toBe(1);
  });

  it("a trusted workspace's .mcp.json (Claude Code's project file) is read", async () => {
    const { run } = await setup();
    fake.server.enqueue({ message: callTool("c1", "mcp__echo__echo", { message: "from .mcp.json" }) }, { message: assistant("Echoed.") });
    const result = await run(["-p", "echo it", "--yolo", "--output-format", "stream-json"], { KOSONG_TRUST_WORKSPACE: "1" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe("");
    expect(toolOutputs(result.stdout)).toEqual(["Echo: from .mcp.json"]);
  });

  it("an untrusted workspace's .mcp.json is not read, and says how to trust it", async () => {
    const { run } = await setup();
    fake.server.enqueue({ message: assistant("No servers.") });
    const result = await run(["-p", "hi"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(".mcp.json was not read");
    const offered = (fake.server.requests[0]!.body!.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(offered.filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(registry?.tarballsServed()).toBe(0);
  });
});
