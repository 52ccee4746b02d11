/**
 * The patterns of a workspace's root `.gitignore`, in a documented subset of
 * git's syntax, for the Shell scan (see `workspace-scan.ts`):
 *
 * - blank lines and `#` comments are skipped;
 * - `name` (no `/` but a trailing one) matches an entry of that name in any folder;
 * - a pattern with a `/` inside or at the start is anchored at the root;
 * - a trailing `/` matches folders only;
 * - `*` and `?` match within one path segment, `**` across segments;
 * - negations (`!pattern`) are not supported and skipped: what they would
 *   re-include stays ignored (not journaled, never touched by a restore).
 */

/** Whether the entry `key` (relative to the root, `/`-separated) is ignored; `folder` tells whether it is a folder. */
export type IgnoreTest = (key: string, folder: boolean) => boolean;

/** The {@link IgnoreTest} of the root `.gitignore` text `text`. */
export function parseGitignore(text: string): IgnoreTest {
  const rules: { pattern: RegExp; folderOnly: boolean }[] = [];
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trimEnd();
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    const folderOnly = line.endsWith("/");
    if (folderOnly) line = line.slice(0, -1);
    const anchored = line.includes("/");
    if (line.startsWith("/")) line = line.slice(1);
    if (line === "") continue;
    const body = toRegExp(line);
    rules.push({ pattern: new RegExp(anchored ? `^${body}$` : `(^|/)${body}$`), folderOnly });
  }
  return (key, folder) => rules.some((rule) => (folder || !rule.folderOnly) && rule.pattern.test(key));
}

function toRegExp(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      out += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return out;
}
