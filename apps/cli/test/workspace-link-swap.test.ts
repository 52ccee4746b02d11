/**
 * The files a workspace brings (AGENTS.md, project permission rules, hooks,
 * skills, custom commands, agent files) are read only from inside it, also against a
 * link swapped in between a check and the read: a real child process
 * toggles a folder of the workspace between a real folder and a link to a
 * folder outside, as fast as it can, while the reader reads again and
 * again. No read may ever return the outside file's content.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { findCustomCommands } from "../src/extensions/custom-commands.js";
import { findSkills } from "../src/extensions/skills.js";
import { readSessionHooks } from "../src/hooks/session-hooks.js";
import { readProjectRuleLists } from "../src/permissions/permission-rules.js";
import { findAgentsFiles } from "../src/project/agents-files.js";
import { agentFolders, loadAgentTypes } from "../src/subagents/agent-files.js";
import { raceReads } from "./link-swapper.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("a workspace's files read while a link is swapped in and out", { timeout: 30_000 }, () => {
  it("AGENTS.md of a subfolder never brings the outside file's text", async () => {
    const result = await raceReads("sub", { "AGENTS.md": ["INSIDE rules", "SECRET_AGENTS"] }, async (ws) => {
      const found = await findAgentsFiles(path.join(ws, "sub"), ws);
      return found.files.map((f) => f.content).join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("project permission rules of .claude/settings.json never come from outside", async () => {
    const rules = (allow: string) => JSON.stringify({ permissions: { allow: [allow] } });
    const result = await raceReads(".claude", { "settings.json": [rules("Shell(INSIDE)"), rules("Shell(SECRET_RULE)")] }, async (ws) => {
      const lists = await readProjectRuleLists(ws, () => undefined);
      return JSON.stringify(lists);
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("hooks of .claude/settings.json never come from outside", async () => {
    const hooks = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } });
    const home = await tempDir();
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, { HOME: home, KOSONG_HOME: path.join(home, ".kosong") });
    const result = await raceReads(".claude", { "settings.json": [hooks("echo INSIDE"), hooks("echo SECRET_HOOK")] }, async (ws) => {
      const found = await readSessionHooks({ settings, cwd: ws, home, warn: () => undefined });
      return found.project.map((h) => h.command).join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("skills and custom commands of .claude never come from outside", async () => {
    const skill = (text: string) => `---\nname: review\ndescription: ${text}\n---\nbody`;
    const result = await raceReads(".claude", { "skills/review/SKILL.md": [skill("INSIDE"), skill("SECRET_SKILL")], "commands/ship.md": ["INSIDE ship", "SECRET_COMMAND ship"] }, async (ws) => {
      const folder = (kind: string) => [{ dir: path.join(ws, ".claude", kind), root: ws, scope: "project" as const }];
      const [skills, commands] = await Promise.all([findSkills(folder("skills"), (f) => f), findCustomCommands(folder("commands"), (f) => f)]);
      return [...skills.map((s) => s.description), ...commands.map((c) => c.template)].join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });

  it("project agent files of .claude/agents never come from outside", async () => {
    const agent = (text: string) => `---\nname: reviewer\ndescription: ${text}\n---\nYou review.\n`;
    const result = await raceReads(".claude", { "agents/reviewer.md": [agent("INSIDE"), agent("SECRET_AGENT")] }, async (ws) => {
      const { types } = await loadAgentTypes(agentFolders(path.join(ws, "..", "kosong-home"), ws, path.join(ws, "..", "user")), ["ReadFile"]);
      return types.map((t) => t.description).join("\n");
    });
    expect(result.inside).toBeGreaterThan(0);
    expect(result.leaks).toBe(0);
  });
});
