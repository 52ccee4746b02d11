/**
 * What the content bench looks for in a compacted context: not the names the
 * agent uses next but the content it needs verbatim. Plain regular
 * expressions over text, on purpose, so anyone can check what counts (issue
 * 27's definitions):
 *
 * - **values**: numbers of 3+ digits or dotted (line numbers, versions,
 *   ports), test names (`test_x`, `SomethingTests`), `SomethingError: message`
 *   texts, and quoted strings of 8-200 characters, that the next 10
 *   assistant steps write (prose or tool-call arguments) and that a tool
 *   output before the cut printed;
 * - **edit anchors**: the old text of the next edits (`old_str`,
 *   `old_string`, `oldText` of edit tools, the literal pattern of
 *   `sed -i 's/OLD/…/'`, the `-` and context lines of each diff hunk), when
 *   found in one message before the cut;
 * - **identifiers in kept content**: the identifiers of `identifiers.ts`
 *   counted only in kept messages and summary prose, not in an index
 *   section (see {@link withoutIndex});
 * - **task verbatim**: each message the user typed, word for word.
 *
 * Anchors and requests are matched on line-normalised text (see
 * {@link normalise}); values on the text as it is (a line number that `grep -n`
 * printed as a prefix is a value the agent goes on to use, and normalising
 * would hide it). A value or an anchor counts as kept when it appears in the
 * compacted context's kept content (see {@link keptContentText}: an identifier
 * index lists names, it does not keep a value or an anchor for the next steps).
 */
import type { Message } from "@kosong/core";
import { messageText } from "./identifiers.ts";

/** `cat -n` (`  12\t`), `nl`, the `   12→` of some file tools, `grep -n` (`12:` or `12-`, also after a path). */
const LINE_NUMBER = /^(?:\s*\d+(?:\t|→| {2,}|\s*│)|(?:[\w./-]+[:-])?\d+[:-](?=\S|\s))/;

/** `text` with line-number prefixes removed, each line trimmed and empty lines dropped. */
export function normalise(text: string): string {
  const lines: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(LINE_NUMBER, "").trim();
    if (line !== "") lines.push(line);
  }
  return lines.join("\n");
}

/** The title every identifier index of @kosong/soul starts with; an index is always the last thing in its text part. */
const INDEX_TITLE = "## Identifiers in the removed messages";

/** `text` without an identifier index section (from its title to the end of the part or to `</system>`). */
export function withoutIndex(text: string): string {
  const at = text.indexOf(INDEX_TITLE);
  if (at < 0) return text;
  const close = text.indexOf("</system>", at);
  return text.slice(0, at) + (close < 0 ? "" : text.slice(close));
}

/** The text of a message without its index sections (text parts one by one, then the tool calls as `messageText` reads them). */
export function keptContentText(message: Message): string {
  const parts = message.content.flatMap((part) => (part.type === "text" ? [withoutIndex(part.text)] : []));
  const calls = messageText({ ...message, content: [] });
  return [...parts, calls].filter((t) => t !== "").join("\n");
}

const NUMBER = /(?<![\w.])\d+(?:\.\d+)+(?![\w]|\.\d)|(?<![\w.])\d{3,}(?![\w]|\.\d)/g;
const TEST_NAME = /\btest_\w{2,}|\b[A-Z]\w*Tests?\b/g;
const ERROR_TEXT = /\b[A-Z]\w*(?:Error|Exception): [^\n]{3,200}/g;
const QUOTED = /"([^"\n]{8,200})"|'([^'\n]{8,200})'/g;

/** A value and whether it is matched with number boundaries (a number) or as plain text. */
export type Value = { text: string; number: boolean };

/** The values of `text` (see the module comment), deduplicated. */
export function valuesIn(text: string): Value[] {
  const found = new Map<string, Value>();
  for (const [n] of text.matchAll(NUMBER)) found.set(n, { text: n, number: true });
  for (const [t] of text.matchAll(TEST_NAME)) found.set(t, { text: t, number: false });
  for (const [e] of text.matchAll(ERROR_TEXT)) {
    const v = e.trim();
    found.set(v, { text: v, number: false });
  }
  for (const m of text.matchAll(QUOTED)) {
    const v = (m[1] ?? m[2]!).trim();
    if (v.length >= 8) found.set(v, { text: v, number: false });
  }
  return [...found.values()];
}

/** True when `value` appears in `text`: a number not inside a longer number or word, anything else as a substring. */
export function containsValue(text: string, value: Value): boolean {
  if (!value.number) return text.includes(value.text);
  let at = text.indexOf(value.text);
  while (at >= 0) {
    const before = text[at - 1] ?? "";
    const after = text.slice(at + value.text.length, at + value.text.length + 2);
    if (!/[\w.]/.test(before) && !/^(?:\w|\.\d)/.test(after)) return true;
    at = text.indexOf(value.text, at + 1);
  }
  return false;
}

const OLD_KEYS = new Set(["old_str", "old_string", "oldText", "old_text"]);

/** The old text of every edit in a tool call's arguments: edit tools' old strings, `sed -i 's/OLD/…/'`, diff hunks. */
export function editAnchors(message: Message): string[] {
  const anchors: string[] = [];
  for (const call of message.tool_calls ?? []) {
    let args: unknown;
    try {
      args = JSON.parse(call.function.arguments ?? "");
    } catch {
      args = call.function.arguments ?? "";
    }
    const visit = (node: unknown, key: string | null): void => {
      if (typeof node === "string") {
        if (key !== null && OLD_KEYS.has(key)) anchors.push(node);
        else {
          anchors.push(...sedPatterns(node));
          anchors.push(...hunkOldTexts(node));
        }
      } else if (Array.isArray(node)) for (const child of node) visit(child, key);
      else if (node !== null && typeof node === "object") for (const [k, child] of Object.entries(node)) visit(child, k);
    };
    visit(args, null);
  }
  return [...new Set(anchors.map(normalise).filter((a) => a.length >= 3))];
}

/** The literal OLD of each `sed -i … s<d>OLD<d>…` in a command (escapes undone, anchors `^`/`$` dropped; regular expressions with `.*` left out). */
function sedPatterns(command: string): string[] {
  const patterns: string[] = [];
  for (const sed of command.matchAll(/\bsed\s+(?:-[a-zA-Z]*\s+)*-i[^\n]*/g)) {
    for (const m of sed[0].matchAll(/(?:^|[\s'";\d,{])s([/|#,@:])((?:\\.|(?!\1).)+)\1/g)) {
      let old = m[2]!.replace(/^\^/, "").replace(/\$$/, "");
      if (/\.\*|\\[wdsS+?]|\[/.test(old)) continue;
      old = old.replace(/\\(.)/g, "$1");
      patterns.push(old);
    }
  }
  return patterns;
}

/** The old text (`-` and context lines) of each hunk of the unified diffs in `text`. */
function hunkOldTexts(text: string): string[] {
  const hunks: string[] = [];
  let current: string[] | null = null;
  const close = (): void => {
    if (current !== null && current.length > 0) hunks.push(current.join("\n"));
    current = null;
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("@@")) {
      close();
      current = [];
    } else if (current !== null) {
      if (line.startsWith("---") || line.startsWith("+++") || line.startsWith("diff ") || line === "EOF") close();
      else if (line.startsWith("-") || line.startsWith(" ")) current.push(line.slice(1));
      else if (line.startsWith("+") || line.startsWith("\\")) continue;
      else if (line === "") current.push("");
      else close();
    }
  }
  close();
  return hunks;
}

/** What the next steps after a cut need, as the content bench counts it. */
export type Needs = {
  values: Value[];
  anchors: string[];
  /** The normalised texts of the messages the user typed before the cut, the first first. */
  requests: string[];
};

/** True for a message the user typed (not a `<system>…</system>` message of the runtime). */
export function isTypedRequest(message: Message): boolean {
  if (message.role !== "user") return false;
  const text = messageText(message).trim();
  return !(text.startsWith("<system>") && text.endsWith("</system>"));
}

/**
 * The values and edit anchors of the next `steps` assistant steps after
 * `cut` that the history before it holds (values: in a tool output; anchors:
 * in one message), and the user's requests before the cut.
 */
export function needsAfter(messages: readonly Message[], cut: number, steps: number): Needs {
  const next = messages.slice(cut).filter((m) => m.role === "assistant").slice(0, steps);
  const before = messages.slice(0, cut);
  const toolText = before.filter((m) => m.role === "tool").map(messageText).join("\n");
  const each = before.map((m) => normalise(messageText(m)));
  const values = new Map<string, Value>();
  const anchors = new Set<string>();
  for (const step of next) {
    for (const value of valuesIn(messageText(step))) if (containsValue(toolText, value)) values.set(value.text, value);
    for (const anchor of editAnchors(step)) if (each.some((text) => text.includes(anchor))) anchors.add(anchor);
  }
  const requests = before.filter(isTypedRequest).map((m) => normalise(messageText(m)));
  return { values: [...values.values()], anchors: [...anchors], requests };
}
