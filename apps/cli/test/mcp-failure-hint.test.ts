/** The likely cause named when an MCP server started by a package launcher does not start. */
import { describe, expect, it } from "vitest";
import { mcpFailureHint } from "../src/agent/mcp-failure-hint.js";
import { launcherEnvironment } from "../src/agent/mcp-launcher-environment.js";

describe("mcpFailureHint", () => {
  it("names downloading or the registry settings when npx runs out of time, and nothing for other commands", () => {
    expect(mcpFailureHint({ command: "/usr/bin/npx", args: ["-y", "x"] }, "MCP server `x` could not be started: did not answer `initialize` within 30000 ms")).toContain("HTTPS_PROXY");
    expect(mcpFailureHint({ command: "uvx" }, "spawn uvx ENOENT")).toBe(" — `uvx` is not on PATH");
    expect(mcpFailureHint({ command: "my-server" }, "did not answer `initialize` within 30000 ms")).toBe("");
    expect(mcpFailureHint({ url: "http://h/mcp" }, "within 1 ms")).toBe("");
  });
});

describe("launcherEnvironment", () => {
  it("passes proxy, CA, locale, npm config and home paths, never credentials", () => {
    const env = launcherEnvironment({
      HTTPS_PROXY: "http://proxy:3128",
      no_proxy: "localhost",
      NODE_EXTRA_CA_CERTS: "/etc/ca.pem",
      LC_ALL: "C.UTF-8",
      npm_config_registry: "http://registry.local/",
      XDG_CACHE_HOME: "/c",
      HOME: "/h",
      npm_config__authToken: "npm-secret-0001",
      "npm_config_//registry.local/:_authToken": "npm-secret-0002",
      HTTP_PROXY: "http://user:pw@proxy:3128",
      OPENAI_API_KEY: "sk-0003-secret",
      GITHUB_TOKEN: "ghp-0004",
      EDITOR: "vim",
    });
    expect(env).toEqual({ HTTPS_PROXY: "http://proxy:3128", no_proxy: "localhost", NODE_EXTRA_CA_CERTS: "/etc/ca.pem", LC_ALL: "C.UTF-8", npm_config_registry: "http://registry.local/", XDG_CACHE_HOME: "/c", HOME: "/h" });
  });
});
