/**
 * kosong's version as `kosong --version` prints it, and the flags that ask
 * for it. The binary's entry answers `kosong --version` (or `-V`) alone
 * itself, before loading the command line: its start then costs about what
 * a bare `node` start does. Every other use of the flags (with other
 * arguments: `kosong -p x --version`) goes through the command line,
 * which prints the same line.
 */
import packageJson from "../package.json" with { type: "json" };

/** What `kosong --version` prints, without the newline: `kosong 0.1.0`. */
export const versionText = `kosong ${packageJson.version}`;

/** The flags of the version option, as the command line declares them. */
export const versionFlags = "-V, --version";

/** Whether `args` (the words after the script) are the version flag alone (`--version` or `-V`). */
export function asksOnlyForVersion(args: readonly string[]): boolean {
  return args.length === 1 && versionFlags.split(", ").includes(args[0]!);
}
