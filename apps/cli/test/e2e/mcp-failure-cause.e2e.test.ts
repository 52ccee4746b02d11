/**
 * An MCP server that does not start names its likely cause, through the
 * built `kosong`: `npx` that cannot get its package in time (a registry
 * stand-in on 127.0.0.1 that holds the tarball back, with `MCP_TIMEOUT`,
 * Claude Code's start-up limit, at 1.5 s) is said to be downloading or
 * unable to reach its registry, with the settings to check; a launcher
 * that is not installed is said to be missing from PATH. The run goes on
 * without the server.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { say } from "./fake-model.js";
import { runKosong, useFakeProviderServer } from "./kosong-binary.js";
import { type LocalNpmRegistry, startLocalNpmRegistry } from "./local-npm-registry.js";

const tempDir = useTempDirs();
const fake = useFakeProviderServer();
let registry: LocalNpmRegistry | null = null;
afterEach(async () => {
  registry?.release();
  await registry?.close();
  registry = null;
});

async function setup(server: object) {
  const home = await tempDir();
  const cwd = path.join(home, "project");
  await mkdir(cwd);
  await writeFile(path.join(home, "mcp.json"), JSON.stringify({ mcpServers: { slow: server } }));
  fake.server.enqueue({ message: say("Answered anyway.") });
  return { home, cwd, args: ["-p", "hi", "--mcp-config-file", path.join(home, "mcp.json")] };
}

describe("an MCP server that does not start names the likely cause", { timeout: 60_000 }, () => {
  it("npx that cannot get its package within MCP_TIMEOUT: downloading, or the registry out of reach", async () => {
    const home0 = await tempDir();
    registry = await startLocalNpmRegistry(path.join(home0, "registry"), [{ name: "kosong-test-held-server", bin: "setInterval(() => {}, 1000);" }], { hold: true });
    const { home, cwd, args } = await setup({ command: "npx", args: ["--yes", "kosong-test-held-server"] });
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1`, MCP_TIMEOUT: "1500", npm_config_registry: registry.url, npm_config_cache: path.join(home, "npm-cache"), npm_config_update_notifier: "false" };
    const result = await runKosong(args, { cwd, home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("Answered anyway.");
    expect(result.stderr).toContain("did not answer `initialize` within 1500 ms");
    expect(result.stderr).toContain("`npx` may still be downloading the package, or cannot reach its registry: check the proxy (HTTPS_PROXY), CA (NODE_EXTRA_CA_CERTS) and registry settings");
    expect(result.stderr).toContain("(the session runs without it)");
  });

  it("a launcher that is not installed: not on PATH", async () => {
    const { home, cwd, args } = await setup({ command: "uvx", args: ["some-mcp-server"] });
    const env = { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${fake.server.url}/v1`, PATH: path.dirname(process.execPath) };
    const result = await runKosong(args, { cwd, home, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("— `uvx` is not on PATH");
  });

  it("refuses an MCP_TIMEOUT that is not a number of milliseconds", async () => {
    const { home, cwd, args } = await setup({ command: "uvx" });
    const result = await runKosong(args, { cwd, home, env: { OPENAI_API_KEY: "sk-test", MCP_TIMEOUT: "soon" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MCP_TIMEOUT (environment): expected a positive whole number of milliseconds, got "soon"');
  });
});
