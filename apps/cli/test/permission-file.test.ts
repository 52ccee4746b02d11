/**
 * Editing a settings file's permission lists on disk: a TOML config keeps
 * its text (comments, other keys, other tables) outside the one array that
 * changes, and one written in a shape the edit does not follow is refused
 * unchanged; a JSON file keeps its other keys; a missing file is made.
 */
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { editPermissionList } from "../src/permissions/permission-file.js";
import { parsePermissionRule } from "../src/permissions/permission-rule.js";
import { PermissionRules } from "../src/permissions/permission-rules.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const add = (text: string) => (list: readonly string[]) => [...list, text];

describe("editPermissionList", () => {
  it("changes only the array in a TOML file, multi-line and with brackets in strings, and adds a missing list or table", async () => {
    const file = path.join(await tempDir(), "config.toml");
    const text = `# top comment\nmodel = "m"\n\n[permissions]\n# rules\nallow = [\n  "Shell(echo ])", # odd one\n  'Shell(ls:*)',\n]\n\n[prices."x"]\ninput = 1\n`;
    await writeFile(file, text);
    await editPermissionList(file, "allow", add('Shell(say "hi")'));
    await editPermissionList(file, "deny", add("Shell(rm:*)"));
    const after = await readFile(file, "utf8");
    expect(after).toContain("# top comment\nmodel = \"m\"");
    expect(after).toContain("[prices.\"x\"]\ninput = 1");
    expect(parse(after)).toEqual({ model: "m", permissions: { allow: ["Shell(echo ])", "Shell(ls:*)", 'Shell(say "hi")'], deny: ["Shell(rm:*)"] }, prices: { x: { input: 1 } } });

    const bare = path.join(path.dirname(file), "bare.toml");
    await writeFile(bare, `\ufeffyolo = true`);
    await editPermissionList(bare, "ask", add("WriteFile"));
    const bareAfter = await readFile(bare, "utf8");
    expect(bareAfter.startsWith("\ufeffyolo = true\n")).toBe(true);
    expect(parse(bareAfter.slice(1))).toEqual({ yolo: true, permissions: { ask: ["WriteFile"] } });
  });

  it("refuses a TOML file whose permissions are an inline table or dotted keys, leaving it as it was", async () => {
    const dir = await tempDir();
    for (const text of [`permissions = { allow = ["A"] }\n`, `permissions.allow = ["A"]\n`]) {
      const file = path.join(dir, "config.toml");
      await writeFile(file, text);
      await expect(editPermissionList(file, "allow", add("B"))).rejects.toThrow(/edit "allow" there by hand/);
      expect(await readFile(file, "utf8")).toBe(text);
    }
  });

  it("keeps a JSON file's other keys, makes a missing file, and refuses a file that is not JSON", async () => {
    const dir = await tempDir();
    const file = path.join(dir, ".claude", "settings.json");
    await editPermissionList(file, "allow", add("Shell(x)"));
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ permissions: { allow: ["Shell(x)"] } });
    await writeFile(file, JSON.stringify({ hooks: { Stop: [] }, permissions: { deny: ["Read(.env)"], allow: ["A", "B"] } }));
    await editPermissionList(file, "allow", (list) => list.filter((t) => t !== "A"));
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ hooks: { Stop: [] }, permissions: { deny: ["Read(.env)"], allow: ["B"] } });
    await writeFile(file, "{ not json");
    await expect(editPermissionList(file, "allow", add("C"))).rejects.toThrow(/not valid JSON/);
    expect(await readFile(file, "utf8")).toBe("{ not json");
  });
});

describe("project permission rules in a workspace whose settings folder is a link", () => {
  it("are not written through a folder that links out of the workspace (a cloned .claude -> the user's own)", async () => {
    const outside = await tempDir();
    const workspace = await tempDir();
    const theirs = path.join(outside, "settings.json");
    await writeFile(theirs, `${JSON.stringify({ permissions: { allow: ["Read"] }, theme: "dark" })}\n`);
    await symlink(outside, path.join(workspace, ".kosong"));
    const rules = new PermissionRules([], { workspace, userFile: path.join(outside, "config.toml"), projectTrusted: true });
    await expect(rules.add("allow", "Shell(make deploy)", "project")).rejects.toThrow(/\.kosong links out of the workspace/);
    expect(JSON.parse(await readFile(theirs, "utf8"))).toEqual({ permissions: { allow: ["Read"] }, theme: "dark" });
    const removed = { ...parsePermissionRule("Read", "allow", theirs)!, level: "project" as const, file: theirs.replace(outside, path.join(workspace, ".kosong")) };
    await expect(rules.remove(removed)).rejects.toThrow(/links out of the workspace/);
    expect(JSON.parse(await readFile(theirs, "utf8")).permissions.allow).toEqual(["Read"]);
    // Nor through a rules file that is itself a link out (the linked file's content would land in the workspace's).
    const linked = await tempDir();
    await mkdir(path.join(linked, ".kosong"));
    await symlink(theirs, path.join(linked, ".kosong", "settings.json"));
    const throughFile = new PermissionRules([], { workspace: linked, userFile: path.join(outside, "config.toml"), projectTrusted: true });
    await expect(throughFile.add("allow", "Shell(make deploy)", "project")).rejects.toThrow(/settings\.json links out of the workspace/);
    expect(JSON.parse(await readFile(path.join(linked, ".kosong", "settings.json"), "utf8"))).toEqual({ permissions: { allow: ["Read"] }, theme: "dark" });
    // A folder inside the workspace, a link within it included, is written as before.
    const other = await tempDir();
    await mkdir(path.join(other, "shared"));
    await symlink(path.join(other, "shared"), path.join(other, ".kosong"));
    const inside = new PermissionRules([], { workspace: other, userFile: path.join(outside, "config.toml"), projectTrusted: true });
    await inside.add("allow", "Shell(make test)", "project");
    expect(JSON.parse(await readFile(path.join(other, "shared", "settings.json"), "utf8"))).toEqual({ permissions: { allow: ["Shell(make test)"] } });
  });
});
