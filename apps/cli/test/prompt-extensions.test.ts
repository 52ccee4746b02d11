/** Hostile workspace text in skills and commands, and what plan mode counts as a reading Shell command. */
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expandCommand, splitArguments } from "../src/extensions/custom-commands.js";
import { parseFrontMatter } from "../src/extensions/front-matter.js";
import { findSkills, readSkillFile, skillFolders } from "../src/extensions/skills.js";
import { isReadOnlyCommand } from "../src/plan/read-only-command.js";
import { useTempDirs } from "./temp-dir.js";

const tempDir = useTempDirs();

describe("prompt files from a workspace", () => {
  it("reads Claude Code's front matter (quoted, folded) and strips controls and bidi overrides", () => {
    const file = parseFrontMatter('---\nname: "pdf"\ndescription: >\n  Fill in\u202e forms\n  and\u0007 sign\nallowed-tools: Read\n---\r\nBody\u001b[2J\n');
    expect(file.fields).toEqual({ name: "pdf", description: "Fill in forms and sign", "allowed-tools": "Read" });
    expect(file.body).toBe("Body[2J\n");
  });

  it("skips skills with bad names or linked out of the workspace, caps the description, keeps Skill's file inside the skill", async () => {
    const home = await tempDir();
    const cwd = path.join(home, "ws");
    const skill = (dir: string, text: string) => mkdir(dir, { recursive: true }).then(() => writeFile(path.join(dir, "SKILL.md"), text));
    await skill(path.join(cwd, ".agents/skills/ok"), `---\nname: ok\ndescription: ${"x".repeat(5000)}\n---\nbody`);
    await skill(path.join(cwd, ".agents/skills/bad"), "---\nname: ../../etc\ndescription: no\n---\n");
    await skill(path.join(home, "out"), "---\nname: out\ndescription: outside\n---\n");
    await mkdir(path.join(cwd, ".claude/skills"), { recursive: true });
    await symlink(path.join(home, "out"), path.join(cwd, ".claude/skills/out"));
    await writeFile(path.join(home, "secret"), "s");
    const warnings: string[] = [];
    const skills = await findSkills(skillFolders(cwd, path.join(home, ".kosong")), (f) => f, (w) => warnings.push(w));
    expect(skills.map((s) => s.name)).toEqual(["ok"]);
    expect(skills[0]!.description).toHaveLength(400);
    expect(warnings.join()).toContain("skipped");
    await expect(readSkillFile(skills[0]!, "../../secret")).rejects.toThrow('no file "../../secret" inside the skill "ok"');
  });

  it("does not wait on a FIFO as a skill's SKILL.md or as a file of a skill", async () => {
    const cwd = await tempDir();
    await mkdir(path.join(cwd, ".agents/skills/ok"), { recursive: true });
    await writeFile(path.join(cwd, ".agents/skills/ok/SKILL.md"), "---\nname: ok\ndescription: fine\n---\nbody");
    execFileSync("mkfifo", [path.join(cwd, ".agents/skills/ok/pipe")]);
    await mkdir(path.join(cwd, ".agents/skills/piped"), { recursive: true });
    execFileSync("mkfifo", [path.join(cwd, ".agents/skills/piped/SKILL.md")]);
    const skills = await findSkills(skillFolders(cwd, path.join(cwd, "home")), (f) => f);
    const ok = skills.find((s) => s.name === "ok")!;
    expect(ok.description).toBe("fine");
    await expect(readSkillFile(ok, "pipe")).rejects.toThrow("not a regular file");
  });

  it("fills $ARGUMENTS and $1.. (quotes group words), and appends arguments to a template without them", () => {
    const command = { name: "c", description: "", argumentHint: "", template: "A=$1 B=$2 C=$3 ALL=$ARGUMENTS", shown: "" };
    expect(splitArguments(`one "two three" 'four'`)).toEqual(["one", "two three", "four"]);
    expect(expandCommand(command, `x "y z"`)).toBe('A=x B=y z C= ALL=x "y z"');
    expect(expandCommand({ ...command, template: "Review." }, "src/a.ts")).toBe("Review.\n\nsrc/a.ts");
  });
});

describe("plan mode's reading commands", () => {
  it("allows reading pipelines and refuses writes, chaining, redirection and substitution", () => {
    for (const ok of ["ls -la", "git status", "git log --oneline | head -5", "grep -rn foo src | wc -l", "find . -name '*.ts'"]) expect(isReadOnlyCommand(ok), ok).toBe(true);
    for (const no of ["touch a", "echo hi > a", "ls; rm -rf x", "cat a && rm a", "git commit -m x", "find . -delete", "find . -exec rm {} +", "echo $(rm a)", "ls `rm a`", "sed -i s/a/b/ f", "git diff --output=x"]) expect(isReadOnlyCommand(no), no).toBe(false);
  });

  it("refuses a reading program's options that write a file or run another program", () => {
    for (const ok of ["rg -n foo src", "git grep -n foo", "tree -L 2", "uniq a.txt", "uniq -c a.txt", "file a.txt", "git log -p"]) expect(isReadOnlyCommand(ok), ok).toBe(true);
    for (const no of ["rg --pre=sh x .", "rg --pre sh x .", "git grep --open-files-in-pager=touch x", "git grep -Otouch x", "git diff --ext-diff", "git log --output x", "tree -o out.txt", "tree -oout.txt", "uniq a.txt b.txt", "file -C -m magic"]) expect(isReadOnlyCommand(no), no).toBe(false);
  });
});
