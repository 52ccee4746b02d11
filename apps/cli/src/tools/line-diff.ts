/**
 * A unified diff of two texts, line by line, for approval requests: hunks
 * with three lines of context under `@@ -a,b +c,d @@` headers, lines marked
 * ` `, `-` and `+`. Lines common to both ends are set aside first; the rest
 * is matched by a longest common subsequence, or, when that would be too
 * big to compute, shown as all removed then all added.
 */

/** Lines of diff shown at most; the rest is counted. */
export const diffLineLimit = 400;

/** Cells of the LCS table computed at most (beyond it: removed then added). */
const tableLimit = 4_000_000;

const context = 3;

type Op = { kind: " " | "-" | "+"; line: string; oldNo: number; newNo: number };

/** The diff of `before` to `after` as text (empty when they are equal), at most {@link diffLineLimit} lines. */
export function lineDiff(before: string, after: string): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = diffOps(a, b);
  const lines: string[] = [];
  for (const hunk of hunks(ops)) {
    const first = hunk[0]!;
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    lines.push(`@@ -${oldCount ? first.oldNo : first.oldNo - 1},${oldCount} +${newCount ? first.newNo : first.newNo - 1},${newCount} @@`);
    for (const op of hunk) lines.push(`${op.kind}${op.line}`);
  }
  if (lines.length <= diffLineLimit) return lines.join("\n");
  return [...lines.slice(0, diffLineLimit), `… ${lines.length - diffLineLimit} more lines of diff`].join("\n");
}

function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: Op[] = [];
  let oldNo = 1;
  let newNo = 1;
  const push = (kind: Op["kind"], line: string): void => {
    ops.push({ kind, line, oldNo, newNo });
    if (kind !== "+") oldNo++;
    if (kind !== "-") newNo++;
  };
  for (let i = 0; i < start; i++) push(" ", a[i]!);
  for (const [kind, line] of middle(a.slice(start, endA), b.slice(start, endB))) push(kind, line);
  for (let i = endA; i < a.length; i++) push(" ", a[i]!);
  return ops;
}

/** The changed middle: a longest-common-subsequence alignment, or all removed then all added when too big. */
function middle(a: string[], b: string[]): [Op["kind"], string][] {
  if (a.length * b.length > tableLimit) return [...a.map((line) => ["-", line] as [Op["kind"], string]), ...b.map((line) => ["+", line] as [Op["kind"], string])];
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * width + j] = a[i] === b[j] ? table[(i + 1) * width + j + 1]! + 1 : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
    }
  }
  const out: [Op["kind"], string][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([" ", a[i++]!]);
      j++;
    } else if (i < a.length && (j === b.length || table[(i + 1) * width + j]! >= table[i * width + j + 1]!)) out.push(["-", a[i++]!]);
    else out.push(["+", b[j++]!]);
  }
  return out;
}

/** The changes with their context, grouped into hunks (changes closer than twice the context share one). */
function hunks(ops: Op[]): Op[][] {
  const changed = ops.flatMap((op, i) => (op.kind === " " ? [] : [i]));
  const result: Op[][] = [];
  let from = -1;
  let to = -1;
  for (const i of changed) {
    if (from >= 0 && i - context <= to + 1) {
      to = Math.min(ops.length - 1, i + context);
      continue;
    }
    if (from >= 0) result.push(ops.slice(from, to + 1));
    from = Math.max(0, i - context);
    to = Math.min(ops.length - 1, i + context);
  }
  if (from >= 0) result.push(ops.slice(from, to + 1));
  return result;
}
