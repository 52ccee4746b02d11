/**
 * The `mcpServers` config as Claude and kimi-cli write it: stdio and HTTP
 * servers, explicit types, disabled servers and unknown keys, and a clear
 * error naming the server and the problem for everything else.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadMcpConfigFile, McpConfigError, parseMcpConfig } from "@kosong/mcp";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/servers.js";

describe("parseMcpConfig", () => {
  it("reads stdio and HTTP servers, with explicit types, leaving out disabled ones and ignoring hosts' extra keys", () => {
    const servers = parseMcpConfig({
      mcpServers: {
        files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { DEBUG: "1" }, autoApprove: [] },
        remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
        typed: { type: "http", url: "http://127.0.0.1:3001/mcp" },
        kimi: { transport: "streamable-http", url: "http://localhost/mcp" },
        local: { type: "stdio", command: "server", cwd: "/tmp" },
        boxed: { command: "server", sandbox: true },
        off: { command: "server", disabled: true },
      },
      otherHostKey: true,
    });
    expect(servers).toEqual({
      files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { DEBUG: "1" } },
      remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer t" } },
      typed: { url: "http://127.0.0.1:3001/mcp" },
      kimi: { url: "http://localhost/mcp" },
      local: { command: "server", cwd: "/tmp" },
      boxed: { command: "server", sandbox: true },
    });
  });

  it.each([
    [{}, "mcpServers: Invalid input: expected record, received undefined"],
    [{ mcpServers: { a: {} } }, 'mcpServers.a: needs "command" (a stdio server) or "url" (a streamable HTTP server)'],
    [{ mcpServers: { a: { command: "x", url: "http://h/" } } }, 'mcpServers.a: has both "command" and "url": give one'],
    [{ mcpServers: { a: { url: "file:///etc/passwd" } } }, "mcpServers.a.url: must be an http: or https: URL"],
    [{ mcpServers: { a: { type: "sse", url: "http://h/sse" } } }, 'mcpServers.a: the "sse" transport is not supported: use the server\'s streamable HTTP endpoint (type "http")'],
    [{ mcpServers: { a: { type: "ws", url: "http://h/" } } }, 'mcpServers.a: unknown transport "ws" (one of: stdio, http)'],
    [{ mcpServers: { a: { type: "stdio", url: "http://h/" } } }, 'mcpServers.a: type "stdio" needs "command"'],
    [{ mcpServers: { a: { command: "x", args: "--flag" } } }, "mcpServers.a.args: Invalid input: expected array, received string"],
    [{ mcpServers: { a: { command: "x", env: { N: 1 } } } }, "mcpServers.a.env.N: Invalid input: expected string, received number"],
  ])("rejects %j with a clear error", (config, problem) => {
    expect(() => parseMcpConfig(config, "my.json")).toThrow(new McpConfigError(`my.json is not a valid mcpServers config:\n  - ${problem}`));
  });
});

describe("loadMcpConfigFile", () => {
  it("reads a JSON file, and names the file when it is missing or not JSON", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { s: { command: "server" } } }));
    expect(await loadMcpConfigFile(file)).toEqual({ s: { command: "server" } });
    await writeFile(file, "{ not json");
    await expect(loadMcpConfigFile(file)).rejects.toThrow(/^The MCP config file .*mcp\.json is not valid JSON: /);
    await expect(loadMcpConfigFile(path.join(dir, "none.json"))).rejects.toThrow(/^Cannot read the MCP config file .*none\.json: ENOENT/);
  });
});

describe("${VAR} in a config", () => {
  const env = { HOST: "127.0.0.1", TOKEN_FILE: "/run/t", EMPTY: "" };

  it("expands ${VAR} and ${VAR:-default} in command, args, env, cwd, url and headers, as Claude Code does", () => {
    const servers = parseMcpConfig(
      {
        mcpServers: {
          local: { command: "${BIN:-npx}", args: ["-y", "pkg@${VERSION:-latest}", "--file=${TOKEN_FILE}"], env: { MODE: "${EMPTY:-dev}", KEEP: "$HOST ${1}" }, cwd: "${DIR:-/srv}" },
          remote: { url: "http://${HOST}:3001/mcp", headers: { "X-Where": "${HOST}" } },
        },
      },
      "cfg",
      { env },
    );
    expect(servers).toEqual({
      local: { command: "npx", args: ["-y", "pkg@latest", "--file=/run/t"], env: { MODE: "dev", KEEP: "$HOST ${1}" }, cwd: "/srv" },
      remote: { url: "http://127.0.0.1:3001/mcp", headers: { "X-Where": "127.0.0.1" } },
    });
  });

  it("refuses a ${VAR} without default that is not set, naming the source, server, key and variable", () => {
    expect(() => parseMcpConfig({ mcpServers: { a: { command: "x", args: ["${MISSING}"] } } }, "cfg", { env })).toThrow(
      new McpConfigError('cfg: server "a" args[0] uses ${MISSING}, which is not set (set it, or write ${MISSING:-default})'),
    );
  });

  it("expands nothing without env", () => {
    expect(parseMcpConfig({ mcpServers: { a: { command: "${BIN}" } } })).toEqual({ a: { command: "${BIN}" } });
  });
});
