/**
 * The project context of the system prompt: the
 * AGENTS.md files from the repository root down to the working directory and
 * a short environment block, each as a `<context name="...">` block. It is
 * built once per working directory and cached for the process, so a session
 * loads it once.
 */
import os from "node:os";
import path from "node:path";
import { findAgentsFiles, findRepoRoot } from "./agents-files.js";
import { gitSummary } from "./git-summary.js";

/** One block of the project context. */
export interface ContextBlock {
  /** The block's name, e.g. `AGENTS.md` or `environment`. */
  name: string;
  /** Where it came from (a file path, or a description). */
  source: string;
  content: string;
}

/** What the system prompt's project context was built from. */
export interface ProjectContext {
  cwd: string;
  repoRoot: string | null;
  blocks: ContextBlock[];
  /** Notices of workspace files left out of the blocks (an AGENTS.md that links out of the repository), for the user. */
  skipped: string[];
}

const cache = new Map<string, Promise<ProjectContext>>();

/** The project context of `cwd`, loaded on the first call and cached for the process. */
export function loadProjectContext(cwd: string, now: Date = new Date()): Promise<ProjectContext> {
  const key = path.resolve(cwd);
  let pending = cache.get(key);
  if (!pending) {
    pending = buildProjectContext(key, now);
    cache.set(key, pending);
  }
  return pending;
}

async function buildProjectContext(cwd: string, now: Date): Promise<ProjectContext> {
  const repoRoot = await findRepoRoot(cwd);
  // Outside a repository git has nothing to say: no git process is started (each spawn forks kosong on the main thread).
  const [agents, git] = await Promise.all([findAgentsFiles(cwd, repoRoot), repoRoot === null ? null : gitSummary(cwd)]);
  const blocks: ContextBlock[] = agents.files.map((file) => ({
    name: path.relative(repoRoot ?? cwd, file.path) || "AGENTS.md",
    source: file.path,
    content: file.content,
  }));
  const environment = [
    `Working directory: ${cwd}`,
    `Date: ${now.toISOString().slice(0, 10)}`,
    `Platform: ${os.platform()} ${os.release()} (${os.arch()})`,
  ];
  if (git) {
    environment.push(`Git branch: ${git.branch}`);
    environment.push(git.status.length ? `Git status:\n${git.status.join("\n")}` : "Git status: clean");
  }
  blocks.push({ name: "environment", source: "working directory, date, platform and git", content: environment.join("\n") });
  return { cwd, repoRoot, blocks, skipped: agents.skipped };
}

/** `blocks` as the system prompt's `<context name="...">...</context>` sections. */
export function formatContextBlocks(blocks: readonly ContextBlock[]): string {
  return blocks.map((block) => `<context name="${block.name}">\n${block.content}\n</context>`).join("\n\n");
}
