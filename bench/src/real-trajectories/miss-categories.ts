/**
 * What kind of value the content bench missed and where it was: the kind of
 * value (a line number a tool printed as a prefix, another number, a
 * version, a test name, an error text, a quoted string), the kind of command
 * whose output held it (a test run, a script, `grep -n`, a file view, pip,
 * git, ...), how many messages before the cut that output was, and whether
 * a newer output of the same command came after it. Counted per strategy
 * and budget by `--misses`, so a person working on a strategy sees which
 * rule would reach the most misses. Read, not scored.
 */
import type { Message } from "@kosong/core";
import type { Value } from "./content.ts";

/** The category of one missed value. */
export type ValueCategory = {
  value: string;
  tool: string;
  /** Messages between the holding output and the cut. */
  age: number;
  /** True when a newer output before the cut answers the same command. */
  newer: boolean;
};

/** The command of the tool call that `history[index]` (a tool output) answers, or "" when there is none. */
export function commandOf(history: readonly Message[], index: number): string {
  const id = history[index]!.tool_call_id;
  for (let i = index - 1; i >= 0; i--) {
    const call = history[i]!.tool_calls?.find((c) => c.id === id);
    if (call === undefined) continue;
    try {
      const args = JSON.parse(call.function.arguments ?? "") as Record<string, unknown>;
      const command = args.command ?? args.cmd;
      return typeof command === "string" ? command : `${call.function.name} ${call.function.arguments ?? ""}`;
    } catch {
      return `${call.function.name} ${call.function.arguments ?? ""}`;
    }
  }
  return "";
}

/** The kind of a shell command (the first that fits, after a leading `cd DIR &&`). */
export function commandKind(command: string): string {
  const c = command.replace(/^\s*cd \S+ && /, "");
  if (/<<\s*['"]?EOF/.test(c)) return "script written and run";
  if (/\bpytest\b|runtests|manage\.py test|\bunittest\b|\btox\b|\bnpm test\b|\bgo test\b|\bcargo test\b/.test(c)) return "test run";
  if (/^python3? -c\b/.test(c)) return "python -c";
  if (/^python3? \S+\.py\b/.test(c)) return "script run";
  if (/\bgrep\b[^|]*\s-\w*n\b/.test(c)) return "grep -n";
  if (/\bgrep\b/.test(c)) return "grep";
  if (/^(?:cat|head|tail|sed -n|nl)\b/.test(c)) return "file view (cat/sed -n/head)";
  if (/^(?:find|ls)\b/.test(c)) return "find/ls";
  if (/\bpip\b/.test(c)) return "pip";
  if (/^git\b/.test(c)) return "git";
  return "other";
}

/** The kind of `value` as `source` (the output that held it) printed it. */
export function valueKind(value: Value, source: string): string {
  if (value.number) {
    if (/^\d+(?:\.\d+)+$/.test(value.text)) return "version (dotted)";
    const prefix = new RegExp(`(?:^|\\n)\\s*(?:[\\w./-]+[:-])?${value.text}(?:[:\\t-]|→)`);
    return prefix.test(source) ? "line number" : "other number";
  }
  if (/^test_\w+$|^[A-Z]\w*Tests?$/.test(value.text)) return "test name";
  if (/(?:Error|Exception): /.test(value.text)) return "error text";
  return "quoted string";
}

/** The category of a value missed from `history` whose newest holding tool output is at `at`. */
export function valueCategory(history: readonly Message[], at: number, value: Value, source: string): ValueCategory {
  const command = commandOf(history, at);
  let newer = false;
  for (let i = at + 1; i < history.length && !newer; i++) newer = history[i]!.role === "tool" && command !== "" && commandOf(history, i) === command;
  return { value: valueKind(value, source), tool: commandKind(command), age: history.length - at, newer };
}

/** The age buckets of the table, in messages before the cut. */
const AGES: ReadonlyArray<[number, string]> = [
  [10, "<= 10"],
  [30, "11-30"],
  [60, "31-60"],
  [100, "61-100"],
  [Number.POSITIVE_INFINITY, "> 100"],
];

/** The missed values of `categories` counted by value kind, command kind, age and newer output, as printed lines under `label`. */
export function categoryTable(label: string, categories: readonly ValueCategory[]): string[] {
  const lines = [`  value misses of ${label}: ${categories.length}`];
  const count = (title: string, key: (c: ValueCategory) => string, order?: readonly string[]): void => {
    const counts = new Map<string, number>();
    for (const c of categories) counts.set(key(c), (counts.get(key(c)) ?? 0) + 1);
    const keys = order ?? [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || a.localeCompare(b));
    lines.push(`    by ${title}: ${keys.filter((k) => counts.has(k)).map((k) => `${k} ${counts.get(k)}`).join(", ")}`);
  };
  count("value", (c) => c.value);
  count("command", (c) => c.tool);
  count("age at the cut (messages)", (c) => AGES.find(([max]) => c.age <= max)![1], AGES.map(([, name]) => name));
  count("newer output of the same command", (c) => (c.newer ? "yes" : "no"), ["yes", "no"]);
  return lines;
}
