/**
 * `/mcp` on a real session: each configured server (the reference
 * everything server as a real child process, and one that does not exist)
 * with its state, transport, error and tools under the names the model
 * calls them by; and a hint when no server is configured. `/context` counts
 * the MCP tools' definitions in the window.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import { ScriptedTypist } from "../src/demo/scripted-typist.js";
import { InteractiveSession } from "../src/modes/interactive/interactive-session.js";
import { runLoop } from "../src/modes/interactive/run-interactive.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const require = createRequire(import.meta.url);
const everything = path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js");

/** Runs `command` (default `/mcp`) in an interactive session opened with the MCP config files given; returns its output and the warnings. */
async function slashMcp(mcpConfigFile: string[], command = "/mcp"): Promise<{ shown: string; warnings: string[] }> {
  const home = await tempDir();
  const cwd = path.join(home, "work");
  await mkdir(cwd);
  const settings = await resolveSettings({ provider: "scripted", script: "unused", mcpConfigFile }, { KOSONG_HOME: path.join(home, ".kosong") });
  const warnings: string[] = [];
  const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
  const agent = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd, warn: (line) => warnings.push(line) });
  let out = "";
  const sink = { write: (chunk: string) => ((out += chunk), true), columns: 100, rows: 30, isTTY: false } as unknown as NodeJS.WriteStream;
  const style = pc.createColors(false);
  const typist = new ScriptedTypist([{ text: command }, { text: "/exit" }], sink, style, { perCharMs: 0, pauseMs: 0 });
  try {
    await runLoop(new InteractiveSession(agent, typist, sink, style));
  } finally {
    await agent.close();
  }
  return { shown: out.slice(out.indexOf(`› ${command}\n`) + command.length + 3).split("\n› ")[0]!, warnings };
}

describe("/mcp", () => {
  it("lists each server with its state, transport and tools, and why a server failed", async () => {
    const file = path.join(await tempDir(), "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] }, gone: { command: "kosong-no-such-mcp-server" } } }));
    const { shown, warnings } = await slashMcp([file]);
    const lines = shown.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^everything {2}connected · stdio · \d+ tools$/);
    expect(lines).toContain("  mcp__everything__echo (read-only)  Echoes back the input string");
    expect(lines).toContain("gone  failed · stdio · 0 tools");
    expect(lines).toContain("  MCP server `gone` could not be started: spawn kosong-no-such-mcp-server ENOENT");
    expect(warnings).toEqual(["MCP server `gone` could not be started: spawn kosong-no-such-mcp-server ENOENT (the session runs without it)"]);
  });

  it("says how to configure servers when there are none", async () => {
    const { shown } = await slashMcp([]);
    expect(shown.trimEnd()).toBe("No MCP servers configured: add `mcpServers` to the config file, or pass --mcp-config-file FILE.");
  });
});

describe("/context with MCP servers", () => {
  it("counts the MCP tools' definitions in the tool definitions row, and says how many came from MCP", async () => {
    const file = path.join(await tempDir(), "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] } } }));
    const tokensOf = (shown: string): number => {
      const row = /tool definitions +([\d.]+)(k?)/.exec(shown);
      expect(row, shown).not.toBeNull();
      return Number(row![1]) * (row![2] === "k" ? 1000 : 1);
    };
    const without = await slashMcp([], "/context");
    const withMcp = await slashMcp([file], "/context");
    expect(without.shown).not.toContain("from MCP");
    expect(withMcp.shown).toMatch(/tool definitions +[\d.]+k? \(\d+%\) +\d+ tools, \d+ from MCP/);
    expect(tokensOf(withMcp.shown)).toBeGreaterThan(tokensOf(without.shown));
  });
});
