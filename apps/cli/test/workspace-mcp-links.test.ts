/**
 * A workspace's `.mcp.json` reached through a link out of the workspace is,
 * like its permission rules and hooks, not the workspace's: its servers are
 * not offered at the trust question nor started in a trusted workspace, and
 * the start says so; also when the link is swapped in while the file is
 * read. A link that stays inside the workspace is read.
 */
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readMcpSources } from "../src/agent/mcp-tools.js";
import { readWorkspaceMcpServers, workspaceMcpSources } from "../src/project/workspace-mcp-file.js";
import { raceReads } from "./link-swapper.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const mcpFile = (command: string) => JSON.stringify({ mcpServers: { tools: { command, args: ["serve"] } } });

/** The servers a trusted session of `ws` would start, and what it warned. */
async function trustedServers(ws: string) {
  const warnings: string[] = [];
  const servers = await readMcpSources(await workspaceMcpSources(ws, true, (line) => warnings.push(line)), {});
  return { servers, warnings };
}

describe("a workspace's .mcp.json reached through a link out of it", () => {
  it("is not read in a trusted workspace, nor shown at the trust question, and the start says so", async () => {
    const root = await tempDir();
    const ws = path.join(root, "ws");
    await mkdir(ws);
    await writeFile(path.join(root, "theirs.json"), mcpFile("/outside/server"));
    await symlink(path.join(root, "theirs.json"), path.join(ws, ".mcp.json"));
    const { servers, warnings } = await trustedServers(ws);
    expect(servers).toEqual({});
    expect(warnings).toContain(".mcp.json links out of the workspace: its MCP servers are not the workspace's and are not started");
    expect(await readWorkspaceMcpServers(ws)).toBeNull();
  });

  it("is read when the link stays inside the workspace", async () => {
    const ws = await tempDir();
    await mkdir(path.join(ws, "config"));
    await writeFile(path.join(ws, "config", "mcp.json"), mcpFile("inside-server"));
    await symlink(path.join(ws, "config", "mcp.json"), path.join(ws, ".mcp.json"));
    const { servers, warnings } = await trustedServers(ws);
    expect(servers).toEqual({ tools: { command: "inside-server", args: ["serve"] } });
    expect(warnings).toEqual([]);
    expect(await readWorkspaceMcpServers(ws)).toEqual([{ name: "tools", launch: "inside-server serve" }]);
  });

  it("a .mcp.json that is a folder or a FIFO is skipped with a notice, without waiting and without failing the start", async () => {
    for (const make of [(file: string) => mkdir(file), (file: string) => Promise.resolve(execFileSync("mkfifo", [file]))]) {
      const ws = await tempDir();
      await make(path.join(ws, ".mcp.json"));
      const { servers, warnings } = await trustedServers(ws);
      expect(servers).toEqual({});
      expect(warnings).toEqual(["This workspace's .mcp.json cannot be read (not a regular file): its servers are not started"]);
      expect(await readWorkspaceMcpServers(ws)).toBeNull();
    }
  });

  it("never brings the outside file's servers while a link is swapped in and out of its place", { timeout: 30_000 }, async () => {
    // A read that fails (the file gone for a moment) brings nothing: only what is read counts.
    const read = async (ws: string) => JSON.stringify((await trustedServers(ws).catch(() => null))?.servers ?? {});
    const result = await raceReads(".mcp.json", { "": [mcpFile("INSIDE"), mcpFile("SECRET_SERVER")] }, read);
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });
});
