/**
 * What approving a Shell command "for the session" covers. Never every
 * later command: a plain command of a program with subcommands whose other
 * words are plain arguments covers that program and subcommand with plain
 * arguments (`git log main` covers `git log` commands without options; for a
 * subcommand that runs something it names, such as `npm run build`, also
 * that name); any other command covers itself only. Options (`-x`,
 * `--output=...`) and assignments (`KEY=value`) are where programs take
 * files to write and programs to run (`git log --output=~/.bashrc`,
 * `git diff --ext-diff`, `make SHELL=...`), so a command with any of them
 * only ever matches exactly, as does one of a subcommand that sets or runs
 * programs with plain words (`git config`, `git bisect`, ...), and so does one with shell syntax beyond plain
 * words (`;`, `&&`, `|`, `$(...)`, backticks, quotes, redirections, globs,
 * a newline): an approved `git status` never lets `git status; rm -rf ~` or
 * `git status --output=x` through.
 */

/** The approval key and its scope in words, for `approval.request(action, description, scope)`. */
export interface ShellApproval {
  /** The key a session approval remembers. */
  action: string;
  /** What a session approval covers, e.g. "`git status` commands". */
  scope: string;
}

/** Programs whose first argument names a subcommand. */
const subcommandPrograms = new Set([
  "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "rustup", "go", "uv", "pip", "pip3", "poetry", "docker", "podman",
  "kubectl", "helm", "terraform", "gh", "brew", "apt", "make", "dotnet", "mvn", "gradle", "bundle", "mix", "composer", "swift",
]);

/**
 * Subcommands whose plain arguments set what later commands run or run a
 * command themselves (`git config core.fsmonitor ./x`, `gh alias set`,
 * `git bisect run ./x`, `git submodule foreach ./x`): they match exactly.
 */
const exactSubcommands = new Set(["config", "alias", "bisect", "submodule"]);

/** Subcommands that run what their next word names: the scope includes that word. */
const runnerSubcommands = new Set(["run", "exec", "x", "dlx", "run-script"]);

/** Plain words only: letters, digits and `_@%+=:,./-`, separated by spaces or tabs. */
const plainCommand = /^[\w@%+=:,./-]+(?:[ \t]+[\w@%+=:,./-]+)*$/;
const subcommandWord = /^[a-z][a-z0-9-]*$/;
/** An option (`-x`, `--name=value`, `--`) or an assignment (`KEY=value`): never covered by a prefix. */
const optionOrAssignment = /^-|=/;

/** The approval key and scope of running `command`. */
export function shellApproval(command: string): ShellApproval {
  const trimmed = command.trim();
  const words = plainCommand.test(trimmed) ? trimmed.split(/[ \t]+/) : [];
  const [program = "", subcommand = "", target = ""] = words;
  const plainArguments = words.slice(2).every((word) => !optionOrAssignment.test(word));
  if (subcommandPrograms.has(program) && subcommandWord.test(subcommand) && !exactSubcommands.has(subcommand) && plainArguments) {
    const prefix = runnerSubcommands.has(subcommand) ? (subcommandWord.test(target) ? `${program} ${subcommand} ${target}` : null) : `${program} ${subcommand}`;
    if (prefix !== null) return { action: `Shell: ${prefix}`, scope: `\`${prefix}\` commands without options` };
  }
  return { action: `Shell: exactly ${command}`, scope: "this exact command" };
}
