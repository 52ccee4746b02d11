/**
 * `/tree`: a conversation's branches (`Context.branches()`) as a tree, the
 * current branch at the root, each branch under the one it left, with what
 * made it, the checkpoint where it left, when it was last written, its size
 * and its first prompt (control characters made visible: it is the model's
 * or the user's text, read back from disk), each on one row: the prompt is
 * cut to what the row has left.
 */
import type { ContextBranch } from "@kosong/soul/conversation";
import stringWidth from "string-width";
import { count } from "./count.js";
import { cutToWidth } from "./cut-to-width.js";
import type { Style } from "./terminal-style.js";
import { timestamp } from "./timestamp.js";
import { oneLine } from "./visible-controls.js";

/**
 * The lines of the tree of `branches` (current branch first, as
 * `Context.branches()` returns them); `sizeUnit` names the log's unit of
 * size (`"byte"` for a file, `"record"` for a database log); each line is
 * narrower than `columns`.
 */
export function branchTreeLines(branches: readonly ContextBranch[], style: Style, sizeUnit: string, columns: number): string[] {
  const children = new Map<number | null, ContextBranch[]>();
  for (const branch of branches) {
    if (branch.parent === undefined) continue;
    const siblings = children.get(branch.parent) ?? [];
    siblings.push(branch);
    children.set(branch.parent, siblings);
  }
  const current = branches.find((b) => b.parent === undefined);
  // The head's width (string-width skips colour codes) leaves the rest of the row to the details.
  const line = (head: string, branch: ContextBranch | undefined) => `${head}${details(branch, style, sizeUnit, columns - 1 - stringWidth(head))}`;
  const lines = [line(`${style.green("●")} current`, current)];
  // A branch's parent is always a later rotation (see `branchTree`), so the walk ends.
  const walk = (parent: number | null, indent: string): void => {
    const list = children.get(parent) ?? [];
    list.forEach((branch, i) => {
      const last = i === list.length - 1;
      const n = branch.rotation!;
      const where = branch.checkpoint === null ? "" : ` at checkpoint ${branch.checkpoint}`;
      lines.push(line(`${indent}${last ? "└─" : "├─"} ${style.bold(String(n))}  ${branch.kind}${where}`, branch));
      walk(n, `${indent}${last ? "   " : "│  "}`);
    });
  };
  walk(null, "");
  return lines;
}

/** The branch's figures and first prompt, in `room` columns (the prompt is what gets cut, or left out). */
function details(branch: ContextBranch | undefined, style: Style, sizeUnit: string, room: number): string {
  if (branch === undefined) return "";
  const parts: string[] = [];
  if (branch.mtimeMs !== null) parts.push(timestamp(branch.mtimeMs));
  if (branch.messages !== null) parts.push(count(branch.messages, "message"));
  if (branch.size !== null) parts.push(count(branch.size, sizeUnit));
  const figures = parts.length > 0 ? ` · ${parts.join(" · ")}` : "";
  // The prompt, quoted, in what the row has left; none when a few columns are not left.
  const promptRoom = room - stringWidth(figures) - 3;
  const prompt = branch.firstPrompt === null || promptRoom < 4 ? "" : ` "${cutToWidth(oneLine(branch.firstPrompt, 60), promptRoom)}"`;
  return `${style.dim(figures)}${prompt}`;
}
