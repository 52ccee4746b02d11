/**
 * Whether a Shell command only reads, as plan mode allows: each command of
 * a pipeline is a known reading program (git only with a reading
 * subcommand, find without -exec/-delete), none of the options through
 * which a reading program writes a file or runs another program, and
 * nothing redirects, chains, substitutes or runs in the background.
 * Anything else counts as a write.
 */

const readers = new Set(["ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "tree", "file", "stat", "du", "df", "which", "echo", "diff", "find", "git", "uniq", "cut", "tr", "nl"]);
const gitReaders = new Set(["status", "log", "diff", "show", "ls-files", "grep", "blame", "rev-parse", "describe"]);
/**
 * Options of reading programs that write a file or run another program
 * (an option given as `-x`, `-xVALUE` or `--name=VALUE` matches its entry).
 */
const writingOptions: Record<string, readonly string[]> = {
  git: ["--output", "-O", "--open-files-in-pager", "--ext-diff"],
  rg: ["--pre", "--pre-glob"],
  tree: ["-o"],
  file: ["-C", "--compile"],
};

/** True when `command` only reads (see the module's comment). */
export function isReadOnlyCommand(command: string): boolean {
  if (/[;&<>`$\n\r(){}]/.test(command)) return false;
  return command.split("|").every((segment) => {
    const words = segment.trim().split(/\s+/);
    const program = words[0] ?? "";
    if (!readers.has(program)) return false;
    if ((writingOptions[program] ?? []).some((option) => words.some((w) => w === option || w.startsWith(option.startsWith("--") ? `${option}=` : option)))) return false;
    if (program === "git") return gitReaders.has(words[1] ?? "");
    if (program === "find") return !words.some((w) => /^-(exec|execdir|ok|okdir|delete|fprint|fprintf|fls)/.test(w));
    // uniq's second operand is the file it writes.
    if (program === "uniq") return words.slice(1).filter((w) => !w.startsWith("-")).length < 2;
    return true;
  });
}
