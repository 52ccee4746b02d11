/**
 * A workspace's hooks file reached through a link that leaves the workspace
 * is, like its permission rules (`project-rules-links.test.ts`), not the
 * workspace's: its hooks are not offered or run as the workspace's, and the
 * start says so. A `.claude` linked to the user's own `~/.claude` would
 * otherwise run each of the user's hooks twice once the workspace is trusted.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSettings } from "../src/config/settings.js";
import { readSessionHooks } from "../src/hooks/session-hooks.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const withStopHook = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command }] }] } });

describe("workspace hooks reached through a link out of the workspace", () => {
  it("a .claude linked to the user's ~/.claude does not bring the user's hooks a second time as the workspace's", async () => {
    const home = await tempDir();
    await mkdir(path.join(home, ".claude"));
    await writeFile(path.join(home, ".claude", "settings.json"), withStopHook("echo mine"));
    const cwd = path.join(home, "proj");
    await mkdir(cwd);
    await symlink(path.join(home, ".claude"), path.join(cwd, ".claude"));
    const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, env);
    const warnings: string[] = [];
    const hooks = await readSessionHooks({ settings, cwd, home, warn: (line) => warnings.push(line) });
    expect(hooks.own.map((h) => h.command)).toEqual(["echo mine"]);
    expect(hooks.project).toEqual([]);
    expect(warnings).toContain(".claude links out of the workspace: the hooks of .claude/settings.json are not the workspace's and are not run");
  });

  it("a linked settings file inside the workspace still brings its hooks", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "proj");
    await mkdir(path.join(cwd, "config"), { recursive: true });
    await writeFile(path.join(cwd, "config", "claude.json"), withStopHook("make lint"));
    await mkdir(path.join(cwd, ".claude"));
    await symlink(path.join(cwd, "config", "claude.json"), path.join(cwd, ".claude", "settings.json"));
    const env = { HOME: home, KOSONG_HOME: path.join(home, ".kosong") };
    const settings = await resolveSettings({ provider: "scripted", script: "unused" }, env);
    const hooks = await readSessionHooks({ settings, cwd, home, warn: () => undefined });
    expect(hooks.project.map((h) => h.command)).toEqual(["make lint"]);
  });
});
