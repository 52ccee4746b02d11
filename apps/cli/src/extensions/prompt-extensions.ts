/**
 * What the user's Markdown files add to a session: its skills and custom
 * commands, found once when the session opens, and the prompt a `/name`
 * line stands for (a custom command's template filled in, or a skill's
 * instructions with the request).
 */
import path from "node:path";
import { visibleControls } from "../render/visible-controls.js";
import { type CustomCommand, commandFolders, expandCommand, findCustomCommands } from "./custom-commands.js";
import { findSkills, loadSkillBody, type Skill, skillFolders } from "./skills.js";

/** The skills and custom commands of a session. */
export interface PromptExtensions {
  skills: Skill[];
  commands: CustomCommand[];
}

/** Finds the skills and commands of workspace `cwd` and of the user's folder `userDir` (`~/.kosong`). */
export async function loadPromptExtensions(cwd: string, userDir: string, warn?: (line: string) => void): Promise<PromptExtensions> {
  const display = (file: string) => visibleControls(path.relative(cwd, file).startsWith("..") ? file : path.relative(cwd, file), { oneLine: true });
  const [skills, commands] = await Promise.all([findSkills(skillFolders(cwd, userDir), display, warn), findCustomCommands(commandFolders(cwd, userDir), display, warn)]);
  return { skills, commands };
}

/**
 * The prompt a `/name args` line stands for: a custom command's (first),
 * else a skill's; null when `line` names neither.
 */
export async function expandPromptCommand(extensions: PromptExtensions, line: string): Promise<string | null> {
  const [, name = "", args = ""] = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const command = extensions.commands.find((c) => c.name === name);
  if (command) return expandCommand(command, args.trim());
  const skill = extensions.skills.find((s) => s.name === name || `skill:${s.name}` === name);
  if (!skill) return null;
  const { body, files } = await loadSkillBody(skill);
  const listed = files.length > 0 ? `\nIts files (read them with the Skill tool's file argument): ${files.join(", ")}` : "";
  return `Use the skill "${skill.name}" for this request.\n\n<skill name="${skill.name}">\n${body}\n</skill>${listed}${args.trim() ? `\n\n${args.trim()}` : ""}`;
}
