/**
 * Custom slash commands: Markdown prompt templates, one per file, in the
 * workspace's `.kosong/commands` and `.claude/commands` and the user's
 * `~/.kosong/commands` (first of a name wins). `review.md` is `/review`; a
 * file in a subfolder (`git/commit.md`) is `/git:commit`. Optional front
 * matter: `description`, `argument-hint` (Claude Code's fields; others are
 * ignored). In the body, `$ARGUMENTS` is what follows the command and `$1`,
 * `$2`, … its words (quotes group words); without `$ARGUMENTS` or `$1`, the
 * arguments are added after the text.
 */
import path from "node:path";
import { oneLineOf, parseFrontMatter, textField } from "./front-matter.js";
import { folderEntries, type PromptFolder, readConfined } from "./prompt-files.js";
import { maxDescriptionLength, promptNamePattern } from "./skills.js";

/** A custom command found on disk. */
export interface CustomCommand {
  /** Its name, e.g. `review` or `git:commit`. */
  name: string;
  /** One line for `/help` (the front matter's, else the template's first line). */
  description: string;
  /** The front matter's `argument-hint`, e.g. `<file> [focus]`. */
  argumentHint: string;
  /** The template (the file without front matter, control characters removed, at most 64 KiB). */
  template: string;
  /** Where it was found, e.g. `.claude/commands/review.md`. */
  shown: string;
}

/** The folders custom commands are read from, first wins. */
export function commandFolders(cwd: string, userDir: string): PromptFolder[] {
  return [
    ...[".kosong", ".claude"].map((top) => ({ dir: path.join(cwd, top, "commands"), root: cwd, scope: "project" as const })),
    { dir: path.join(userDir, "commands"), root: path.parse(userDir).root, scope: "user" },
  ];
}

/** Finds the custom commands of `folders` (one level of subfolders, as namespaces). */
export async function findCustomCommands(folders: readonly PromptFolder[], display: (file: string) => string, warn: (line: string) => void = () => undefined): Promise<CustomCommand[]> {
  const commands: CustomCommand[] = [];
  const add = async (folder: PromptFolder, file: string, name: string): Promise<void> => {
    if (!promptNamePattern.test(name)) return warn(`command ${display(file)} skipped: its name is not letters, digits, ".", "_" or "-"`);
    if (commands.some((c) => c.name === name)) return;
    const read = await readConfined(folder.root, file).catch(() => null);
    if (read === null) return;
    const { fields, body } = parseFrontMatter(read.text);
    const template = body.trim();
    commands.push({
      name,
      description: oneLineOf(textField(fields, "description") ?? template.split("\n").find((l) => l.trim()) ?? "", maxDescriptionLength),
      argumentHint: oneLineOf(textField(fields, "argument-hint") ?? "", 60),
      template,
      shown: display(file),
    });
  };
  for (const folder of folders) {
    for (const entry of await folderEntries(folder.dir)) {
      if (entry.endsWith(".md")) await add(folder, path.join(folder.dir, entry), entry.slice(0, -3));
      else for (const inner of (await folderEntries(path.join(folder.dir, entry))).filter((e) => e.endsWith(".md"))) await add(folder, path.join(folder.dir, entry, inner), `${entry}:${inner.slice(0, -3)}`);
    }
  }
  return commands;
}

/** The prompt `command` makes of `args` (the text after its name). */
export function expandCommand(command: CustomCommand, args: string): string {
  const words = splitArguments(args);
  let used = false;
  const text = command.template.replace(/\$(ARGUMENTS|\d+)/g, (_, key: string) => {
    used = true;
    return key === "ARGUMENTS" ? args : (words[Number(key) - 1] ?? "");
  });
  return used || !args ? text : `${text}\n\n${args}`;
}

/** `args` as words: white space separates, double or single quotes group. */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  for (const match of args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}
