/**
 * Whether a Shell command only reads, as plan mode allows: each command of
 * a pipeline is a known reading program (git only with a reading
 * subcommand, find without -exec/-delete), and nothing redirects, chains,
 * substitutes or runs in the background. Anything else counts as a write.
 */

const readers = new Set(["ls", "cat", "head", "tail", "wc", "grep", "rg", "pwd", "tree", "file", "stat", "du", "df", "which", "echo", "diff", "find", "git", "uniq", "cut", "tr", "nl"]);
const gitReaders = new Set(["status", "log", "diff", "show", "ls-files", "grep", "blame", "rev-parse", "describe"]);

/** True when `command` only reads (see the module's comment). */
export function isReadOnlyCommand(command: string): boolean {
  if (/[;&<>`$\n\r(){}]/.test(command)) return false;
  return command.split("|").every((segment) => {
    const words = segment.trim().split(/\s+/);
    const program = words[0] ?? "";
    if (!readers.has(program)) return false;
    if (program === "git") return gitReaders.has(words[1] ?? "") && !words.includes("--output") && !words.some((w) => w.startsWith("--output="));
    if (program === "find") return !words.some((w) => /^-(exec|execdir|ok|okdir|delete|fprint|fprintf|fls)/.test(w));
    return true;
  });
}
