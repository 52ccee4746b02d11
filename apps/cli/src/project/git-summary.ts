/**
 * A short, bounded summary of the working directory's git state for the
 * system prompt: the branch and at most a few lines of `git status`.
 *
 * The repository may be untrusted (a cloned or unpacked project whose
 * `.git/config` kosong has never seen), so git runs with every command its
 * configuration can start turned off: no fsmonitor, no hooks (and no index
 * write that would fire one), no clean or process filters, no pager, no
 * external diff or textconv, no submodule recursion, no network (so no
 * `ext::` remote, ssh command or lazy fetch), no prompts. Each run has a
 * timeout and an output cap, and git is looked up in PATH's absolute
 * folders only.
 */
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { childEnvironment } from "../tools/child-environment.js";

/** Status lines shown at most. */
export const maxStatusLines = 20;

/** Time one git command may take (a config include can name a FIFO). */
const gitTimeoutMs = 3_000;
/** Output read from one git command at most. */
const maxOutputBytes = 1024 * 1024;

/** The branch and the bounded status, or null outside a repository (or without git). */
export interface GitSummary {
  branch: string;
  /** `git status --short` lines, at most {@link maxStatusLines}, then a count of the rest. */
  status: string[];
}

/**
 * The git summary of `cwd`, or null when git is missing or `cwd` is not in a
 * repository. Two git processes: `git config` lists the filter drivers the
 * configuration git reads here defines (git's own discovery and includes,
 * so none is missed), then one `git status --short --branch`, with those
 * drivers turned off, gives the branch and the status.
 */
export async function gitSummary(cwd: string): Promise<GitSummary | null> {
  const program = await gitOnPath();
  if (program === null) return null;
  const env = gitEnvironment();
  const git = (args: string[], extra: Array<[string, string]>) => runGit(program, cwd, env, args, extra);
  const listed = await git(["config", "--null", "--name-only", "--get-regexp", "^filter\\."], []);
  // `git config --get-regexp` exits 1 when nothing matches. When the drivers cannot be listed, git runs no further.
  if (listed === null || listed.truncated || (listed.code !== 0 && listed.code !== 1)) return null;
  const drivers = driverNames(listed.stdout);
  const status = await git(["status", "--short", "--branch", "--untracked-files=normal", "--ignore-submodules=all", "--no-renames"], filterOverrides(drivers));
  if (status?.code !== 0) return null;
  const [header = "", ...changes] = status.stdout.split("\n");
  const branch = branchOf(header);
  if (branch === null) return null;
  const lines = changes.filter((line) => line.trim().length > 0);
  const shown = lines.slice(0, maxStatusLines);
  if (status.truncated) shown.push(`... and more changed files`);
  else if (lines.length > shown.length) shown.push(`... and ${lines.length - shown.length} more changed files`);
  return { branch, status: shown };
}

/**
 * The branch from `git status --short --branch`'s first line (git's
 * messages in the C locale): `## main...origin/main [ahead 1]`, `## main`,
 * `## No commits yet on main`, `## HEAD (no branch)`. A branch name holds no
 * space and no `..`. Null for anything else.
 */
function branchOf(header: string): string | null {
  if (!header.startsWith("## ")) return null;
  const rest = header.slice(3);
  const unborn = /^(?:No commits yet on|Initial commit on) (\S+)$/.exec(rest);
  if (unborn) return unborn[1]!;
  if (rest === "HEAD (no branch)") return "(detached HEAD)";
  const name = rest.split(" ")[0]!.split("...")[0]!;
  return name.length > 0 ? name : null;
}

/** Settings that turn off what a repository's configuration could make git run. */
const safeSettings: Array<[string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["core.sshCommand", "false"],
  ["core.askPass", "false"],
  ["core.quotePath", "true"],
  ["core.attributesFile", "/dev/null"],
  ["diff.external", ""],
  ["diff.ignoreSubmodules", "all"],
  ["status.submoduleSummary", "false"],
  ["color.ui", "false"],
  ["protocol.allow", "never"],
  ["credential.helper", ""],
];

/** The driver names in `git config --null --name-only` output (`filter.<name>.<key>` entries). */
function driverNames(keys: string): string[] {
  return [...new Set(keys.split("\0").map((key) => /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1]).filter((name): name is string => name !== undefined))];
}

/**
 * Empties every filter driver in `names` (`filter.<name>.clean`,
 * `.smudge`, `.process`, and `.required` off), since `git status` runs the
 * clean filter of a file whose timestamps changed.
 */
function filterOverrides(names: readonly string[]): Array<[string, string]> {
  return names.flatMap((name): Array<[string, string]> => [
    [`filter.${name}.clean`, ""],
    [`filter.${name}.smudge`, ""],
    [`filter.${name}.process`, ""],
    [`filter.${name}.required`, "false"],
  ]);
}

interface GitRun {
  code: number;
  stdout: string;
  /** The output was longer than the cap (what was read is in stdout). */
  truncated: boolean;
}

/** The absolute folders of PATH (git gets only these too, for whatever it runs). */
function absoluteFolders(): string[] {
  return (process.env.PATH ?? "").split(path.delimiter).filter((folder) => path.isAbsolute(folder));
}

/**
 * git's path from the absolute folders of PATH: an empty or relative entry
 * (`.`, a trailing `:`) would find a `git` the repository itself ships.
 */
async function gitOnPath(): Promise<string | null> {
  for (const folder of absoluteFolders()) {
    const candidate = path.join(folder, "git");
    const found = await stat(candidate).then((s) => s.isFile(), () => false);
    if (found && (await access(candidate, constants.X_OK).then(() => true, () => false))) return candidate;
  }
  return null;
}

/** The environment git runs in: the one Shell commands get (no credentials), without git's own variables, and git's messages untranslated. */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(childEnvironment(process.env)).filter(([key]) => !key.startsWith("GIT_")));
  return Object.assign(env, {
    PATH: absoluteFolders().join(path.delimiter),
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_TERMINAL_PROMPT: "0",
    GIT_NO_LAZY_FETCH: "1",
    GIT_PROTOCOL_FROM_USER: "0",
    GIT_ALLOW_PROTOCOL: "",
    GIT_PAGER: "cat",
    PAGER: "cat",
  });
}

/**
 * Runs git in `base` ({@link gitEnvironment}) with the safe settings and
 * `extra` given through the environment (`GIT_CONFIG_KEY_n`, so no name or
 * value is parsed). Null when git cannot be run or timed out.
 */
function runGit(program: string, cwd: string, base: NodeJS.ProcessEnv, args: string[], extra: Array<[string, string]>): Promise<GitRun | null> {
  const settings = [...safeSettings, ...extra];
  const env: NodeJS.ProcessEnv = { ...base, GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return new Promise((resolve) => {
    execFile(
      program,
      ["--no-pager", "--no-optional-locks", ...args],
      { cwd, env, timeout: gitTimeoutMs, killSignal: "SIGKILL", maxBuffer: maxOutputBytes, encoding: "utf8" },
      (error, stdout) => {
        if (error === null) return resolve({ code: 0, stdout, truncated: false });
        if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return resolve({ code: 0, stdout, truncated: true });
        resolve(typeof error.code === "number" && !error.killed ? { code: error.code, stdout, truncated: false } : null);
      },
    );
  });
}
