/**
 * Skills and custom commands through the built binary: SKILL.md folders
 * from the four places are listed in the system prompt by name and
 * description only, their bodies reach the model when it loads one (the
 * Skill tool) or the user invokes one (`/name`), and a Claude Code command
 * file runs with its arguments. Workspace files are hostile: a skill
 * linked out of the workspace is not read, and Skill's file argument stays
 * inside the skill's folder.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDirs } from "../temp-dir.js";
import { skillsSuite } from "./skills-workspace.js";
import { callTool, say, usage, useFakeModel } from "./fake-model.js";

const fake = useFakeModel();
const tempDir = useTempDirs();

const { setup, sent, text } = skillsSuite(fake, tempDir);

describe("skills and custom commands (the built binary)", { timeout: 90_000 }, () => {
  it("lists each folder's skill by description only; the body comes when the model loads it, and its files only from inside it", async () => {
    const { run } = await setup();
    fake.server.enqueue(
      { message: callTool("c1", "Skill", { name: "pdf" }), usage },
      { message: callTool("c2", "Skill", { name: "pdf", file: "forms.md" }), usage },
      { message: callTool("c3", "Skill", { name: "pdf", file: "../../../secret.txt" }), usage },
      { message: say("Done."), usage },
    );
    const result = await run(["-p", "fill in the form"]);
    expect(result.code, result.stderr).toBe(0);
    const system = text(sent(0)[0]);
    for (const line of ["- release: Cut a release of the package", "- lint: Lint the code before[2J a commit", "- pdf: Fill in PDF forms", "- haiku: Answer in a haiku"]) expect(system).toContain(line);
    expect(system).not.toMatch(/BODY-|stolen|\u0007|\u001b/);
    const tools = (fake.server.requests[0]!.body!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(tools).toContain("Skill");
    expect(JSON.stringify(sent(0))).not.toContain("BODY-");
    expect(text(sent(1).at(-1))).toContain("BODY-CLAUDE: see forms.md for the fields.");
    expect(text(sent(1).at(-1))).toContain("forms.md");
    expect(text(sent(2).at(-1))).toContain("FORMS-FILE: name, date.");
    expect(text(sent(3).at(-1))).toContain('no file "../../../secret.txt" inside the skill "pdf"');
    expect(JSON.stringify(sent(3))).not.toContain("SECRET-OUTSIDE");
  });

  it("/<skill> request sends the skill's body with the request, for a workspace and a user skill", async () => {
    const { run } = await setup();
    fake.server.enqueue({ message: say("Tagged."), usage }, { message: say("Old pond."), usage });
    expect((await run(["-p", "/release version 2.0"])).code).toBe(0);
    expect(text(sent(0).at(-1))).toMatch(/BODY-KOSONG: bump the version, then tag\.[\s\S]*version 2\.0$/);
    expect((await run(["-p", "/haiku about frogs"])).code).toBe(0);
    expect(text(sent(1).at(-1))).toMatch(/BODY-USER: three lines[\s\S]*about frogs$/);
  });

  it("runs a Claude Code command file from .claude/commands with $ARGUMENTS and positional arguments", async () => {
    const { cwd, run } = await setup();
    await mkdir(path.join(cwd, ".claude/commands/git"), { recursive: true });
    await writeFile(path.join(cwd, ".claude/commands/fix-issue.md"), "---\ndescription: Fix an issue\nargument-hint: <issue> [priority]\n---\nFix issue $1 with priority $2.\nAll arguments: $ARGUMENTS\n");
    await writeFile(path.join(cwd, ".claude/commands/git/commit.md"), "Write a commit message for the staged changes.\n");
    fake.server.enqueue({ message: say("Fixed."), usage }, { message: say("Committed."), usage });
    expect((await run(["-p", '/fix-issue "issue 12" high'])).code).toBe(0);
    expect(text(sent(0).at(-1))).toBe('Fix issue issue 12 with priority high.\nAll arguments: "issue 12" high');
    expect((await run(["-p", "/git:commit mention the tests"])).code).toBe(0);
    expect(text(sent(1).at(-1))).toBe("Write a commit message for the staged changes.\n\nmention the tests");
  });

});
