/**
 * Why the content bench missed something: for a value or an edit anchor the
 * compacted context does not hold, where it was before the cut (the newest
 * message that held it: its position, role, the tool call behind it, its
 * size) and what the compaction did with that message (kept whole, cut to
 * an excerpt, dropped), with how many of the anchor's lines survived. Read
 * by a person working on a strategy (`--misses` of the bench runner), not
 * scored.
 */
import type { Message } from "@kosong/core";
import { containsValue, normalise, type Value } from "./content.ts";
import { messageText } from "./identifiers.ts";
import { type ValueCategory, valueCategory } from "./miss-categories.ts";

/** One missed item and where it was. */
export type Miss = {
  kind: "value" | "anchor";
  /** The value or the anchor (normalised), shortened for printing. */
  item: string;
  trajectory: string;
  cut: number;
  /** The newest message before the cut that held it: `#index role (tool: command) N tokens`, and its fate in the output. */
  source: string;
  /** For a value: what kind it is and where it was (see `miss-categories.ts`). */
  category?: ValueCategory;
};

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

/** The misses as printed lines, one per miss. */
export function formatMisses(strategy: string, misses: readonly Miss[]): string[] {
  return misses.map((m) => `  miss ${strategy} | ${m.kind} ${JSON.stringify(m.item)} | ${m.trajectory} cut ${m.cut} | ${m.source}`);
}
