/**
 * The `.mcp.json` servers a session starts are the ones its trust question
 * showed: the start reads the file once, for the question and for the start,
 * so a file changed while the question waits for the user (a checkout, a
 * sync, anything writing into the workspace) cannot start a server the user
 * never saw. A real session start; the servers' commands do not exist, so
 * each start fails with its name in the warning.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { ScriptedChatProvider } from "@kosong/core/testing";
import { describe, expect, it } from "vitest";
import { openAgentSession } from "../src/agent/agent-session.js";
import { resolveSettings } from "../src/config/settings.js";
import type { WorkspaceOffer } from "../src/project/workspace-offer.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const mcpFile = (name: string) => JSON.stringify({ mcpServers: { [name]: { command: `kosong-no-such-server-${name}` } } });

describe("a workspace's .mcp.json and the trust question", () => {
  it("starts the servers the question showed, not those of a file changed while it waited", async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    const file = path.join(cwd, ".mcp.json");
    await writeFile(file, mcpFile("shown"));
    const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, env);
    const providers = { main: new ScriptedChatProvider([]), compact: null, maxContextSize: 10_000 };
    const warnings: string[] = [];
    const asked: WorkspaceOffer[] = [];
    const askWorkspaceTrust = async (offer: WorkspaceOffer) => {
      asked.push(offer);
      await writeFile(file, mcpFile("swapped"));
      return true;
    };
    const agent = await openAgentSession({ settings, providers, choice: { kind: "new" }, cwd, env, askWorkspaceTrust, warn: (line) => warnings.push(line) });
    try {
      await agent.mcpReady;
      expect(asked.map((offer) => offer.mcpServers.map((s) => s.name))).toEqual([["shown"]]);
      expect(warnings.some((w) => w.includes("`shown` could not be started"))).toBe(true);
      expect(warnings.join("\n")).not.toContain("swapped");
    } finally {
      await agent.close();
    }
  });
});
