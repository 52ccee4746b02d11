/**
 * One front matter parser for every Markdown file kosong reads from a
 * workspace or the user's folders: agent files, skills and custom commands
 * get the same YAML subset (folded blocks, inline and dash lists), the same
 * control stripping, and the same caps on hostile sizes.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCustomCommands } from "../src/extensions/custom-commands.js";
import { maxFrontMatterLines, maxListItems, parseFrontMatter } from "../src/extensions/front-matter.js";
import { findSkills } from "../src/extensions/skills.js";
import { agentTypeOf } from "../src/subagents/agent-files.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();
const known = ["ReadFile", "Grep", "Shell"];

describe("the front matter parser", () => {
  it("gives an agent file folded descriptions and strips controls from its system prompt, as for skills", () => {
    const text = "---\nname: reviewer\ndescription: >\n  Reviews\u202e code\n  carefully\ntools:\n  - Read\n  - \"Grep\"\n---\nYou review.\u001b[2J\n";
    expect(agentTypeOf("/x/reviewer.md", text, true, known)).toMatchObject({ name: "reviewer", description: "Reviews code carefully", tools: ["ReadFile", "Grep"], systemPrompt: "You review.[2J" });
  });

  it("reads lists in a skill's or a command's front matter without breaking the string fields", async () => {
    const root = await tempDir();
    const skillDir = path.join(root, ".agents", "skills", "pdf");
    await mkdir(skillDir, { recursive: true });
    await writeFile(path.join(skillDir, "SKILL.md"), "---\nname: pdf\nallowed-tools:\n  - Read\n  - Grep\ndescription: [Fill forms, sign]\n---\nBody\n");
    const skills = await findSkills([{ dir: path.join(root, ".agents", "skills"), root, scope: "project" }], (f) => f);
    expect(skills.map((s) => [s.name, s.description])).toEqual([["pdf", "Fill forms, sign"]]);
    expect(parseFrontMatter("---\nallowed-tools:\n  - Read\n  - Grep\n---\n").fields).toEqual({ "allowed-tools": ["Read", "Grep"] });
    const commands = path.join(root, ".claude", "commands");
    await mkdir(commands, { recursive: true });
    await writeFile(path.join(commands, "fix.md"), "---\ndescription: |\n  Fix the issue\n  and test it\nargument-hint: [issue, priority]\n---\nFix $1.\n");
    const found = await findCustomCommands([{ dir: commands, root, scope: "project" }], (f) => f);
    expect(found.map((c) => [c.name, c.description, c.argumentHint])).toEqual([["fix", "Fix the issue and test it", "issue, priority"]]);
  });

  it("caps hostile sizes: a front matter never closed in time is all body, a huge list keeps its first items", () => {
    const unclosed = `---\n${"a: b\n".repeat(maxFrontMatterLines + 10)}---\nbody`;
    expect(parseFrontMatter(unclosed)).toEqual({ fields: {}, body: unclosed });
    const huge = parseFrontMatter(`---\ntools:\n${"  - x\n".repeat(50_000)}inline: [${"y,".repeat(50_000)}]\n---\n`);
    expect(huge.fields).toEqual({});
    const capped = parseFrontMatter(`---\ntools:\n${"  - x\n".repeat(maxListItems * 2)}inline: [${"y,".repeat(maxListItems * 2)}]\n---\nbody`);
    expect(capped.fields.tools).toHaveLength(maxListItems);
    expect(capped.fields.inline).toHaveLength(maxListItems);
    expect(capped.body).toBe("body");
  });
});
