/**
 * The machine's `/tmp` seen through a sandbox's private one: a sandboxed
 * command gets its own writable `/tmp`, which would hide programs and
 * files installed under the machine's `/tmp` (a checkout made with
 * `mktemp -d`, a tool unpacked there). The entries of the machine's `/tmp`
 * that hold what a command needs are shown again, read-only.
 */
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";

/** Where the sandbox's private temp folder is mounted. */
export const sandboxTmp = "/tmp";

/**
 * The entries of the machine's `/tmp` (e.g. `/tmp/tmp.x1Yz`) holding
 * `paths` (absolute; as given and after links), those that exist, without
 * `excluded` (the sandbox's own folders), each once, sorted.
 */
export function machineTmpEntries(paths: Iterable<string>, excluded: readonly string[]): string[] {
  const entries = new Set<string>();
  for (const given of paths) {
    if (!path.isAbsolute(given)) continue;
    for (const p of [path.normalize(given), realOrNull(given)]) {
      const entry = p === null ? null : tmpEntryOf(p);
      if (entry !== null && !excluded.includes(entry) && existsSync(entry)) entries.add(entry);
    }
  }
  return [...entries].sort();
}

/** `/tmp/<name>` when `p` is under `/tmp`, else null. */
function tmpEntryOf(p: string): string | null {
  const relative = path.relative(sandboxTmp, p);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return null;
  return path.join(sandboxTmp, relative.split(path.sep)[0]!);
}

/** `p` after links: the real path of its longest existing part, the rest appended; null when none resolves. */
function realOrNull(p: string): string | null {
  for (let at = path.normalize(p), rest = ""; ; ) {
    try {
      return path.join(realpathSync(at), rest);
    } catch {
      const parent = path.dirname(at);
      if (parent === at) return null;
      rest = path.join(path.basename(at), rest);
      at = parent;
    }
  }
}
