/**
 * Custom agents from markdown files with front matter (`name`,
 * `description`, `tools`, `model`; the body is the system prompt), kosong's
 * and Claude Code's: `<KOSONG_HOME>/agents/*.md` and `~/.claude/agents/*.md`
 * (the user's), `.kosong/agents/*.md` and `.claude/agents/*.md` in the
 * working directory (the project's).
 *
 * Project files come with the workspace, so they are read as hostile:
 * regular files only (no links, in folders that are not links, and as
 * opened inside the workspace: a linked `.kosong` or `.claude` brings none), at most
 * {@link maxAgentFiles} per folder and {@link maxAgentFileBytes} each, names
 * of letters, digits, `-` and `_`, control characters dropped from the
 * description; they cannot replace a built-in kind or a user's agent of the
 * same name, and their `model` is ignored (the session's model runs them).
 */
import { lstat, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { readCappedFile } from "../files/read-capped-file.js";
import { oneLine } from "../render/visible-controls.js";
import { builtinAgentTypes, type AgentType } from "./agent-types.js";
import { parseFrontMatter, splitList } from "./front-matter.js";

/** Files read per folder at most (sorted by name). */
export const maxAgentFiles = 64;
/** A larger agent file is skipped. */
export const maxAgentFileBytes = 32 * 1024;

/** Claude Code's tool names, as kosong's. */
const claudeToolNames: Record<string, string> = { Read: "ReadFile", Write: "WriteFile", Edit: "EditFile", MultiEdit: "EditFile", Bash: "Shell", LS: "ListDir", Glob: "Glob", Grep: "Grep", WebFetch: "FetchURL" };

/** Where agent files are looked for. */
export interface AgentFolders {
  /** The user's folders (trusted: their `model` counts). */
  user: string[];
  /** The project's folders (workspace-brought). */
  project: string[];
  /** The workspace the project's files must lie in, as opened (a `.kosong` or `.claude` linked out of it brings none). */
  workspace: string;
}

/** The folders of a session: kosong's home and `~/.claude` for the user, the working directory's for the project. */
export function agentFolders(home: string, cwd: string, userHome: string): AgentFolders {
  return {
    user: [path.join(home, "agents"), path.join(userHome, ".claude", "agents")],
    project: [path.join(cwd, ".kosong", "agents"), path.join(cwd, ".claude", "agents")],
    workspace: cwd,
  };
}

/** What loading found: the kinds (built-in first) and a note per file skipped. */
export interface LoadedAgentTypes {
  types: AgentType[];
  notes: string[];
}

/**
 * The built-in kinds, then the custom ones: a user's file wins over a
 * project's of the same name; none replaces a built-in.
 */
export async function loadAgentTypes(folders: AgentFolders, knownTools: readonly string[]): Promise<LoadedAgentTypes> {
  const notes: string[] = [];
  const byName = new Map<string, AgentType>(builtinAgentTypes.map((t) => [t.name, t]));
  const workspace = await realpath(folders.workspace).catch(() => path.resolve(folders.workspace));
  for (const [trusted, dirs] of [[true, folders.user], [false, folders.project]] as const) {
    for (const dir of dirs) {
      for (const type of await readFolder(dir, trusted ? null : workspace, knownTools, notes)) {
        if (byName.has(type.name)) notes.push(`${type.source}: an agent named "${type.name}" exists already; this one is ignored`);
        else byName.set(type.name, type);
      }
    }
  }
  return { types: [...byName.values()], notes };
}

/** The agents of folder `dir`: the user's (`within` null), or the project's, whose files must lie in the real folder `within`, as opened. */
async function readFolder(dir: string, within: string | null, knownTools: readonly string[], notes: string[]): Promise<AgentType[]> {
  const trusted = within === null;
  const info = await lstat(dir).catch(() => null);
  if (info === null) return [];
  if (!info.isDirectory()) {
    notes.push(`${dir}: not a folder (a link?); no agents read from it`);
    return [];
  }
  const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith(".md")).sort();
  if (names.length > maxAgentFiles) notes.push(`${dir}: ${names.length} agent files, only the first ${maxAgentFiles} read`);
  const types: AgentType[] = [];
  for (const name of names.slice(0, maxAgentFiles)) {
    const file = path.join(dir, name);
    const text = await readCapped(file, within).catch((error: unknown) => {
      notes.push(`${file}: skipped (${error instanceof Error ? error.message : String(error)})`);
      return null;
    });
    if (text === null) continue;
    const type = agentTypeOf(file, text, trusted, knownTools);
    if (typeof type === "string") notes.push(`${file}: skipped (${type})`);
    else types.push(type);
  }
  return types;
}

/** Reads a regular file (not through a link; inside the real folder `within`, as opened, when given) of at most {@link maxAgentFileBytes}. */
async function readCapped(file: string, within: string | null): Promise<string> {
  const read = await readCappedFile(file, maxAgentFileBytes, { followLinks: false, ...(within !== null && { within }) });
  if (read.kind === "read") return read.bytes.toString("utf8");
  if (read.kind === "outside") throw new Error("it links out of the workspace");
  throw new Error(read.kind === "too-large" ? `${read.bytes} bytes, more than ${maxAgentFileBytes}` : read.kind === "unreadable" ? read.message : "not there");
}

/** The kind a file defines, or why it defines none. */
export function agentTypeOf(file: string, text: string, trusted: boolean, knownTools: readonly string[]): AgentType | string {
  const { fields, body } = parseFrontMatter(text);
  const name = typeof fields.name === "string" ? fields.name : path.basename(file, ".md");
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(name)) return `the name ${JSON.stringify(oneLine(name, 40))} is not letters, digits, - and _ (at most 64)`;
  if (body === "") return "no system prompt (the text after the front matter is empty)";
  const description = typeof fields.description === "string" ? oneLine(fields.description.replace(/\p{Cc}/gu, " "), 300) : `custom agent ${name}`;
  const listed = typeof fields.tools === "string" ? splitList(fields.tools) : fields.tools;
  const tools = listed === undefined ? "all" : [...new Set(listed.map((t) => claudeToolNames[t] ?? t).filter((t) => knownTools.includes(t)))];
  const model = trusted && typeof fields.model === "string" && fields.model !== "inherit" && /^[\w.:/@-]{1,100}$/.test(fields.model) ? fields.model : null;
  return { name, description, systemPrompt: body, tools, model, source: file };
}
