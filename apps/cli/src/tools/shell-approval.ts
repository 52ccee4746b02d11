/**
 * What approving a Shell command "for the session" covers. Never every
 * later command: a plain command of a program with subcommands covers that
 * program and subcommand (`git status -s` covers `git status` commands; for
 * a subcommand that runs something it names, such as `npm run build`, also
 * that name); any other command covers itself only. A command with shell
 * syntax beyond plain words (`;`, `&&`, `|`, `$(...)`, backticks, quotes,
 * redirections, globs, a newline) only ever matches exactly, so an approved
 * `git status` never lets `git status; rm -rf ~` through.
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

/** Subcommands that run what their next word names: the scope includes that word. */
const runnerSubcommands = new Set(["run", "exec", "x", "dlx", "run-script"]);

/** Plain words only: letters, digits and `_@%+=:,./-`, separated by spaces or tabs. */
const plainCommand = /^[\w@%+=:,./-]+(?:[ \t]+[\w@%+=:,./-]+)*$/;
const subcommandWord = /^[a-z][a-z0-9-]*$/;

/** The approval key and scope of running `command`. */
export function shellApproval(command: string): ShellApproval {
  const trimmed = command.trim();
  const words = plainCommand.test(trimmed) ? trimmed.split(/[ \t]+/) : [];
  const [program = "", subcommand = "", target = ""] = words;
  if (subcommandPrograms.has(program) && subcommandWord.test(subcommand)) {
    const prefix = runnerSubcommands.has(subcommand) ? (subcommandWord.test(target) ? `${program} ${subcommand} ${target}` : null) : `${program} ${subcommand}`;
    if (prefix !== null) return { action: `Shell: ${prefix}`, scope: `\`${prefix}\` commands` };
  }
  return { action: `Shell: exactly ${command}`, scope: "this exact command" };
}
