/**
 * Why the content bench missed something: for a value, an edit anchor or an
 * identifier the compacted context does not hold, where it was before the
 * cut (the newest message that held it: its position, role, the tool call
 * behind it, its size) and what the compaction did with that message (kept
 * whole, cut to an excerpt, made a stub, dropped), with how many of the
 * anchor's lines survived. Identifier misses are also summed up by where
 * they were (see {@link MissCategory}) and what happened to that message.
 * Read by a person working on a strategy (`--misses` of the bench runner),
 * not scored.
 */
import type { Message } from "@kosong/core";
import { containsValue, normalise, type Value } from "./content.ts";
import { containsIdentifier, messageText } from "./identifiers.ts";
import { type ValueCategory, valueCategory } from "./miss-categories.ts";

/** One missed item and where it was. */
export type Miss = {
  kind: "value" | "anchor" | "identifier";
  /** The value or the anchor (normalised), shortened for printing. */
  item: string;
  trajectory: string;
  cut: number;
  /** The newest message before the cut that held it: `#index role (tool: command) N tokens`, and its fate in the output. */
  source: string;
  /** For a value: what kind it is and where it was (see `miss-categories.ts`). */
  category?: ValueCategory;
  /** For an identifier: where it was (see {@link MissCategory}). */
  where?: MissCategory;
  /** What the compaction did with the message that held it (identifier misses only). */
  fate?: Fate;
};

/**
 * Where a missed identifier was before the cut: in the newest message that
 * held it, the agent's own tool-call arguments (a command, a script), its
 * prose, a user message, or a tool output by what the call did (see
 * {@link outputKind}).
 */
export type MissCategory = "agent's tool-call arguments" | "agent prose" | "user message" | `tool output: ${OutputKind}` | "not found";

/** What a compaction did with a message: kept it whole, cut it to an excerpt, made it a stub (a tool output), dropped it (or summarised it). */
export type Fate = "kept whole" | "excerpted" | "stub" | "dropped";

/** What a tool call did, read from its command: view a file, search or list, run code or tests, edit, write a file, git, other. */
export type OutputKind = "file view" | "search/listing" | "run/test" | "edit" | "write file" | "git" | "other";

/** At most `max` characters of `text` on one line. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The tool call `message` (a tool output) answers, found in the history before it. */
function callOf(history: readonly Message[], index: number): string {
  const id = history[index]!.tool_call_id;
  for (let i = index - 1; i >= 0; i--) {
    const call = history[i]!.tool_calls?.find((c) => c.id === id);
    if (call !== undefined) return `${call.function.name}: ${oneLine(call.function.arguments ?? "", 90)}`;
  }
  return "call not found";
}

/** The output message that stands for `message` (same tool call id, or the same text), if any. */
function counterpart(message: Message, output: readonly Message[]): Message | undefined {
  if (message.role === "tool") return output.find((m) => m.role === "tool" && m.tool_call_id === message.tool_call_id);
  const firstCall = message.tool_calls?.[0]?.id;
  if (firstCall !== undefined) return output.find((m) => m.tool_calls?.some((c) => c.id === firstCall));
  const text = messageText(message);
  return output.find((m) => m.role === message.role && messageText(m) === text);
}

/** The command of the call that the tool output at `index` answers (its arguments' `command`, else the raw arguments). */
function commandOf(history: readonly Message[], index: number): string {
  const id = history[index]!.tool_call_id;
  for (let i = index - 1; i >= 0; i--) {
    const call = history[i]!.tool_calls?.find((c) => c.id === id);
    if (call === undefined) continue;
    try {
      const args = JSON.parse(call.function.arguments ?? "") as { command?: unknown };
      return typeof args.command === "string" ? args.command : `${call.function.name} ${call.function.arguments ?? ""}`;
    } catch {
      return `${call.function.name} ${call.function.arguments ?? ""}`;
    }
  }
  return "";
}

/** What a shell command (or a tool name with its arguments) did, by its first program after any `cd …&&`. */
export function outputKind(command: string): OutputKind {
  const head = command.replace(/^\s*(?:cd\s+\S+\s*(?:&&|;)\s*)+/, "").trimStart();
  if (/^(?:cat|tee)\b[^\n|]*(?:>|<<)/.test(head)) return "write file";
  if (/^sed\s+(?:-[a-zA-Z]*\s+)*-i/.test(head) || /^(?:str_replace|edit|apply_patch|patch)\b/i.test(head)) return "edit";
  if (/^(?:cat|head|tail|nl|less|sed|awk|view|read)\b/i.test(head)) return "file view";
  if (/^(?:grep|rg|ag|find|ls|tree|glob|search)\b/i.test(head)) return "search/listing";
  if (/^(?:python\d?(?:\.\d+)?|pytest|node|npm|pnpm|make|cargo|go|tox|\.\/|bash|sh)\b|^\.\//.test(head)) return "run/test";
  if (/^git\b/.test(head)) return "git";
  return "other";
}

/** What the compaction did with `message` (see {@link Fate}). */
function fateOf(message: Message, output: readonly Message[]): Fate {
  const kept = counterpart(message, output);
  if (kept === undefined) return "dropped";
  const text = messageText(kept);
  if (text === messageText(message)) return "kept whole";
  return message.role === "tool" && /^\[tool output elided: \d+ tokens\]$/.test(text) ? "stub" : "excerpted";
}

/** Where the message at `index` of `c.history` went in `output`, and how big it was (`count`: a token count). */
function describeSource(history: readonly Message[], index: number, output: readonly Message[], count: (m: Message) => number): string {
  const message = history[index]!;
  const tool = message.role === "tool" ? ` (${callOf(history, index)})` : message.tool_calls?.length ? ` (calls ${message.tool_calls.map((c) => c.function.name).join(", ")})` : "";
  const lines = messageText(message).split("\n").length;
  const kept = counterpart(message, output);
  const fate =
    kept === undefined
      ? "dropped"
      : messageText(kept) === messageText(message)
        ? "kept whole"
        : `cut to ${count(kept)} tokens, ${messageText(kept).split("\n").length} lines`;
  return `#${index} of ${history.length} ${message.role}${tool}, ${count(message)} tokens, ${lines} lines: ${fate}`;
}

/** The share of an anchor's lines that `text` (normalised) holds, as `k/n lines`. */
function linesKept(anchor: string, text: string): string {
  const lines = anchor.split("\n");
  const have = new Set(text.split("\n"));
  return `${lines.filter((line) => have.has(line)).length}/${lines.length} lines in the output`;
}

/** The newest index of `history` for which `holds` is true (-1 when none). */
function newest(history: readonly Message[], holds: (m: Message) => boolean): number {
  for (let i = history.length - 1; i >= 0; i--) if (holds(history[i]!)) return i;
  return -1;
}

/** A missed value: the newest tool output before the cut that printed it. */
export function valueMiss(trajectory: string, history: readonly Message[], output: readonly Message[], value: Value, count: (m: Message) => number): Miss {
  const at = newest(history, (m) => m.role === "tool" && containsValue(messageText(m), value));
  const miss: Miss = { kind: "value", item: oneLine(value.text, 80), trajectory, cut: history.length, source: at < 0 ? "not found" : describeSource(history, at, output, count) };
  return at < 0 ? miss : { ...miss, category: valueCategory(history, at, value, messageText(history[at]!)) };
}

/** A missed anchor: the newest message before the cut whose normalised text holds it. */
export function anchorMiss(trajectory: string, history: readonly Message[], output: readonly Message[], anchor: string, count: (m: Message) => number): Miss {
  const at = newest(history, (m) => normalise(messageText(m)).includes(anchor));
  const text = normalise(output.map(messageText).join("\n"));
  const source = at < 0 ? "not found" : describeSource(history, at, output, count);
  return { kind: "anchor", item: oneLine(anchor, 80), trajectory, cut: history.length, source: `${source}; ${linesKept(anchor, text)}` };
}

/** Where `identifier` is in the message at `index`: its tool-call arguments, its prose, a user message, a tool output of some kind. */
function categoryOf(history: readonly Message[], index: number, identifier: string): MissCategory {
  const message = history[index]!;
  if (message.role === "user") return "user message";
  if (message.role === "tool") return `tool output: ${outputKind(commandOf(history, index))}`;
  const inCalls = containsIdentifier(messageText({ ...message, content: [] }), identifier);
  return inCalls ? "agent's tool-call arguments" : "agent prose";
}

/** A missed identifier: the newest message before the cut that held it, where in it, and what the compaction did with it. */
export function identifierMiss(trajectory: string, history: readonly Message[], output: readonly Message[], identifier: string, count: (m: Message) => number): Miss {
  const at = newest(history, (m) => containsIdentifier(messageText(m), identifier));
  const item = oneLine(identifier, 80);
  if (at < 0) return { kind: "identifier", item, trajectory, cut: history.length, source: "not found", where: "not found", fate: "dropped" };
  const message = history[at]!;
  return {
    kind: "identifier",
    item,
    trajectory,
    cut: history.length,
    source: describeSource(history, at, output, count),
    where: categoryOf(history, at, identifier),
    fate: fateOf(message, output),
  };
}

/** The identifier misses counted by category and fate, as table lines (`category | kept whole | excerpted | stub | dropped | all`), most first. */
export function summariseIdentifierMisses(strategy: string, misses: readonly Miss[]): string[] {
  const fates: Fate[] = ["kept whole", "excerpted", "stub", "dropped"];
  const table = new Map<string, Map<Fate, number>>();
  let all = 0;
  for (const miss of misses) {
    if (miss.kind !== "identifier" || miss.where === undefined || miss.fate === undefined) continue;
    const row = table.get(miss.where) ?? new Map<Fate, number>();
    row.set(miss.fate, (row.get(miss.fate) ?? 0) + 1);
    table.set(miss.where, row);
    all++;
  }
  const total = (row: Map<Fate, number>): number => [...row.values()].reduce((a, b) => a + b, 0);
  const rows = [...table].sort((a, b) => total(b[1]) - total(a[1]));
  return [
    `  identifier misses of ${strategy}: ${all} | ${fates.join(" | ")} | all`,
    ...rows.map(([category, row]) => `  ${category} | ${fates.map((f) => row.get(f) ?? 0).join(" | ")} | ${total(row)} (${((100 * total(row)) / Math.max(all, 1)).toFixed(0)} %)`),
  ];
}

/** The misses as printed lines, one per miss. */
export function formatMisses(strategy: string, misses: readonly Miss[]): string[] {
  return misses.map((m) => `  miss ${strategy} | ${m.kind} ${JSON.stringify(m.item)} | ${m.trajectory} cut ${m.cut} | ${m.source}`);
}
