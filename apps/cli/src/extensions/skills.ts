/**
 * Skills: folders with a `SKILL.md` (front matter `name` and `description`,
 * then instructions), in the layout Claude Code, Codex and kimi-cli share.
 * Only a skill's name and description go into the system prompt; its body
 * is read when the model loads it (the `Skill` tool) or the user invokes it
 * (`/<name>`). Skills come from the workspace's `.kosong/skills`,
 * `.agents/skills` and `.claude/skills` and the user's `~/.kosong/skills`;
 * the first of a name wins.
 */
import { readdir } from "node:fs/promises";
import path from "node:path";
import { oneLineOf, parseFrontMatter, textField } from "./front-matter.js";
import { folderEntries, type PromptFolder, readConfined } from "./prompt-files.js";

/** A skill found on disk (its body is read on use, see {@link loadSkillBody}). */
export interface Skill {
  /** Its name (`/name` invokes it); letters, digits, `.`, `_`, `-`, at most 64. */
  name: string;
  /** One line, at most {@link maxDescriptionLength} characters, control characters removed. */
  description: string;
  /** The skill's folder (real path). */
  dir: string;
  /** Its SKILL.md (real path). */
  file: string;
  /** `project` (from the workspace) or `user`. */
  scope: "project" | "user";
  /** Where it was found, for listings, e.g. `.claude/skills/review`. */
  shown: string;
}

/** Characters of a description kept in the system prompt. */
export const maxDescriptionLength = 400;

/** A name a skill or command may have. */
export const promptNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** The folders skills are read from, first wins: the workspace's `.kosong`, `.agents`, `.claude`, then the user's. */
export function skillFolders(cwd: string, userDir: string): PromptFolder[] {
  return [
    ...[".kosong", ".agents", ".claude"].map((top) => ({ dir: path.join(cwd, top, "skills"), root: cwd, scope: "project" as const })),
    { dir: path.join(userDir, "skills"), root: path.parse(userDir).root, scope: "user" },
  ];
}

/** Finds the skills of `folders`; `warn` hears of a skill skipped (a bad name, a link out of its folder). */
export async function findSkills(folders: readonly PromptFolder[], display: (file: string) => string, warn: (line: string) => void = () => undefined): Promise<Skill[]> {
  const skills: Skill[] = [];
  for (const folder of folders) {
    for (const entry of await folderEntries(folder.dir)) {
      const read = await readConfined(folder.root, path.join(folder.dir, entry, "SKILL.md"), 16 * 1024).catch(() => null);
      if (read === null) continue;
      const file = read.real;
      const { fields, body } = parseFrontMatter(read.text);
      const name = textField(fields, "name") ?? entry;
      if (!promptNamePattern.test(name)) {
        warn(`skill in ${display(path.join(folder.dir, entry))} skipped: its name is not letters, digits, ".", "_" or "-"`);
        continue;
      }
      if (skills.some((s) => s.name === name)) continue;
      const description = oneLineOf(textField(fields, "description") ?? body.split("\n").find((line) => line.trim()) ?? "", maxDescriptionLength);
      skills.push({ name, description, dir: path.dirname(file), file, scope: folder.scope, shown: display(path.join(folder.dir, entry)) });
    }
  }
  return skills;
}

/** The system prompt's section listing `skills` (empty when there are none). */
export function skillsPromptSection(skills: readonly Skill[]): string {
  if (skills.length === 0) return "";
  const lines = skills.map((s) => `- ${s.name}: ${s.description}`);
  return `# Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, load the skill with the Skill tool (name) before you start, and follow it; Skill with a file reads the skill's other files.\n\n${lines.join("\n")}`;
}

/** A skill's instructions: its SKILL.md without the front matter, and the files beside it. */
export interface SkillBody {
  body: string;
  /** Files of the skill's folder other than SKILL.md (relative, at most 50). */
  files: string[];
}

/** Reads `skill`'s body (again, and confined again: the file may have changed) and lists its files. */
export async function loadSkillBody(skill: Skill): Promise<SkillBody> {
  const read = await readConfined(skill.dir, skill.file);
  if (read === null) throw new Error(`the skill "${skill.name}" is no longer readable in its folder`);
  const { text, cut } = read;
  const body = parseFrontMatter(text).body.trim();
  return { body: cut ? `${body}\n[the rest of SKILL.md was cut at 64 KiB]` : body, files: await skillFiles(skill.dir) };
}

/** Reads `relative` from `skill`'s folder: only inside it (after links), at most 64 KiB. */
export async function readSkillFile(skill: Skill, relative: string): Promise<string> {
  const read = await readConfined(skill.dir, path.resolve(skill.dir, relative));
  if (read === null) throw new Error(`no file "${relative}" inside the skill "${skill.name}"`);
  const { text, cut } = read;
  if (text.includes("\u0000")) throw new Error(`"${relative}" is not a text file`);
  return cut ? `${text}\n[cut at 64 KiB]` : text;
}

async function skillFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (relative: string, depth: number): Promise<void> => {
    const entries = await readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (found.length >= 50) return;
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory() && depth < 3 && !entry.name.startsWith(".")) await walk(child, depth + 1);
      else if (entry.isFile() && child !== "SKILL.md") found.push(child);
    }
  };
  await walk("", 0);
  return found;
}
